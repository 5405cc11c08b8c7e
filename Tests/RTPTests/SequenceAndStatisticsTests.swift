import Media
import Testing
@testable import RTP

struct SequenceUnwrapperTests {
    @Test(arguments: [UInt16(0), 32767, 65527])
    func sweep_countsOnAcrossWrap(start: UInt16) {
        var unwrapper = SequenceUnwrapper()
        for offset in 0..<10 {
            #expect(unwrapper.unwrap(start &+ UInt16(offset)) == Int64(start) + Int64(offset))
        }
    }

    @Test func wrap_65535To0_movesForward() {
        var unwrapper = SequenceUnwrapper()
        #expect(unwrapper.unwrap(65534) == 65534)
        #expect(unwrapper.unwrap(65535) == 65535)
        #expect(unwrapper.unwrap(0) == 65536)
        #expect(unwrapper.unwrap(65535) == 65535)  // late packet steps back
        #expect(unwrapper.unwrap(1) == 65537)
        #expect(unwrapper.unwrap(32768) == 98304)
    }

    @Test func lateBeforeFirst_goesNegative() {
        var unwrapper = SequenceUnwrapper()
        #expect(unwrapper.unwrap(0) == 0)
        #expect(unwrapper.unwrap(65535) == -1)
    }
}

struct ReceptionStatisticsTests {
    @Test func loss_andFractionPerInterval() {
        var stats = ReceptionStatistics(ssrc: 7)
        let start = Instant.seconds(1)
        // Seq 65530…65545 across the wrap, with 65533 and 2 lost: 16 expected, 14 received.
        for offset in 0..<16 where offset != 3 && offset != 8 {
            stats.record(sequenceNumber: 65530 &+ UInt16(offset), rtpTimestamp: UInt32(offset * 3000), arrival: start + .milliseconds(Int64(offset) * 33))
        }
        #expect(stats.expected == 16)
        #expect(stats.lost == 2)
        let report = stats.makeReport(now: start + .seconds(1))
        #expect(report.ssrc == 7)
        #expect(report.totalLost == 2)
        #expect(report.fractionLost == 32)  // 2/16 × 256
        #expect(report.highestSequence == 0x0001_0009)  // one cycle, seq 9

        // The next interval: 4 packets, none lost.
        for offset in 16..<20 {
            stats.record(sequenceNumber: 65530 &+ UInt16(offset), rtpTimestamp: UInt32(offset * 3000), arrival: start + .milliseconds(Int64(offset) * 33))
        }
        let next = stats.makeReport(now: start + .seconds(2))
        #expect(next.fractionLost == 0)
        #expect(next.totalLost == 2)
    }

    @Test func jitter_zeroForSteadyArrivals_growsWithVariation() {
        var stats = ReceptionStatistics(ssrc: 1)
        // 30 fps: 3000 ticks and 33.333 ms apart, arriving exactly on time.
        for index in 0..<50 {
            stats.record(sequenceNumber: UInt16(index), rtpTimestamp: UInt32(index * 3000), arrival: .init(nanoseconds: Int64(index) * 33_333_333))
        }
        #expect(stats.jitter < 1)

        var jittery = ReceptionStatistics(ssrc: 1)
        // Every other packet 10 ms late: |D| = 900 ticks each step; jitter converges toward 900.
        for index in 0..<200 {
            let late: Int64 = index % 2 == 1 ? 10_000_000 : 0
            jittery.record(sequenceNumber: UInt16(index), rtpTimestamp: UInt32(index * 3000), arrival: .init(nanoseconds: Int64(index) * 33_333_333 + late))
        }
        #expect(abs(jittery.jitter - 900) < 5)
        #expect(jittery.makeReport(now: .seconds(10)).jitter == UInt32(jittery.jitter))
    }

    @Test func senderReport_echoedAsLSRAndDLSR() {
        var stats = ReceptionStatistics(ssrc: 1)
        stats.record(sequenceNumber: 1, rtpTimestamp: 0, arrival: .seconds(1))
        let sr = SenderReport(ssrc: 1, ntpTime: 0x1234_5678_9ABC_DEF0, rtpTime: 0, packetCount: 1, octetCount: 100)
        stats.recordSenderReport(sr, arrival: .seconds(2))
        let report = stats.makeReport(now: .seconds(2.5))
        #expect(report.lastSR == 0x5678_9ABC)
        #expect(report.delaySinceLastSR == 32768)  // 0.5 s in 1/65536 s
    }
}
