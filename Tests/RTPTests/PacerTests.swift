import Media
import Testing
@testable import RTP

struct PacerTests {
    /// Drains the pacer on simulated time, returning each packet's send time.
    static func drain(_ pacer: inout Pacer, from start: Instant) -> [Instant] {
        var now = start
        var sent: [Instant] = []
        while let next = pacer.nextSendTime(now: now) {
            now = next
            while pacer.dequeue(now: now) != nil { sent.append(now) }
        }
        return sent
    }

    @Test func keyframe_200KB_spreadOverTime() {
        // 2.5 Mbit/s target × 2.5 = 6.25 Mbit/s: 200 KB (1.6 Mbit) takes 256 ms.
        let rate = 2_500_000 * Pacer.defaultRateMultiplier
        var pacer = Pacer(rateBitsPerSecond: rate)
        let packets = 200_000 / 1200 + 1
        for _ in 0..<packets {
            let accepted = pacer.enqueue(size: 1200)
            #expect(accepted)
        }
        #expect(pacer.queuedBytes == packets * 1200)

        let start = Instant.seconds(10)
        let sent = Self.drain(&pacer, from: start)
        #expect(sent.count == packets)
        #expect(pacer.queuedPackets == 0)

        // At 0 ms the first burst leaves; the last packet near 255 ms, not at once.
        let span = (sent.last! - start).inMilliseconds
        #expect(span > 240 && span < 260)

        // No 10 ms window carries more than 10 ms of rate plus the burst allowance.
        let perWindowLimit = Int((rate * 0.015) / 8 / 1200) + 1
        for (index, time) in sent.enumerated() {
            let inWindow = sent[index...].prefix { $0 - time < .milliseconds(10) }.count
            #expect(inWindow <= perWindowLimit)
        }
    }

    @Test func fullQueue_dropsAndCounts() {
        var pacer = Pacer(rateBitsPerSecond: 1_000_000, queueCapacity: 100)
        for _ in 0..<150 { pacer.enqueue(size: 1200) }
        #expect(pacer.queuedPackets == 100)
        #expect(pacer.droppedPackets == 50)
    }

    @Test func idlePacer_sendsImmediately() {
        var pacer = Pacer(rateBitsPerSecond: 1_000_000)
        let now = Instant.seconds(1)
        #expect(pacer.nextSendTime(now: now) == nil)
        pacer.enqueue(size: 500)
        #expect(pacer.nextSendTime(now: now) == now)
        #expect(pacer.dequeue(now: now) == 500)
    }

    @Test func outOfQueueSend_chargesBucket() {
        // At 1 Mbit/s, 12 500 bytes is 100 ms; with a 5 ms allowance the next may go at 95 ms.
        var pacer = Pacer(rateBitsPerSecond: 1_000_000)
        let start = Instant.seconds(0)
        #expect(pacer.canSend(now: start))
        pacer.didSend(size: 12_500, now: start)
        #expect(!pacer.canSend(now: start + .milliseconds(90)))
        #expect(pacer.canSend(now: start + .milliseconds(95)))
        pacer.enqueue(size: 100)
        #expect(pacer.nextSendTime(now: start) == start + .milliseconds(95))
    }

    @Test func retransmission_goesAheadOfTheQueue() {
        var pacer = Pacer(rateBitsPerSecond: 960_000, burstAllowance: .zero)
        for _ in 0..<3 { pacer.enqueue(size: 1200) }
        pacer.enqueueFirst(size: 600)
        #expect(pacer.queuedPackets == 4)
        #expect(pacer.dequeue(now: .seconds(1)) == 600)
        #expect(pacer.queueDelay == .milliseconds(30))
    }

    @Test func probePackets_leaveAtTheirOwnRate() {
        // Pacing at 1 Mbit/s; five 250-byte probe packets at 4 Mbit/s leave
        // 0.5 ms apart, then the media packet behind them 2 ms after the last.
        var pacer = Pacer(rateBitsPerSecond: 1_000_000, burstAllowance: .zero)
        for _ in 0..<5 { pacer.enqueue(size: 250, rate: 4_000_000) }
        pacer.enqueue(size: 250)
        let start = Instant.seconds(3)
        let sent = Self.drain(&pacer, from: start).map { ($0 - start).inMilliseconds }
        #expect(sent.count == 6)
        for (index, time) in sent.prefix(5).enumerated() { #expect(abs(time - 0.5 * Double(index)) < 0.001) }
        #expect(abs(sent[5] - 2.5) < 0.001)
    }
}
