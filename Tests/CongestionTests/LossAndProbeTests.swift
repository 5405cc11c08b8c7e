@testable import Congestion
import Media
import Testing

struct LossAndProbeTests {
    @Test func nackLoss_countsEachNumberOnceAgainstWhatWasSent() {
        var meter = NackLossMeter()
        for i in 0..<200 { meter.recordSent(at: .zero + .milliseconds(Int64(5 * i))) }
        let lost: [UInt16] = (0..<10).map { UInt16($0 * 20) }
        #expect(meter.recordNack(lost, at: .zero + .milliseconds(500)) == 10)
        // The receiver asks again for the same packets: no more loss.
        #expect(meter.recordNack(lost, at: .zero + .milliseconds(700)) == 0)
        #expect(meter.takeLossRatio(at: .zero + .milliseconds(900)) == nil)
        #expect(meter.takeLossRatio(at: .seconds(1)) == 0.05)
        #expect(meter.takeLossRatio(at: .seconds(1.1)) == nil)
    }

    @Test func lossRules_backOffInProportion_holdInBetween_growWhenUsed() {
        var estimator = LossBasedEstimator(bitrate: 2_000_000)
        estimator.update(lossRatio: 0.2, sending: 2_000_000, at: .seconds(1))
        #expect(estimator.bitrate == 1_800_000)
        estimator.update(lossRatio: 0.05, sending: 1_800_000, at: .seconds(2))
        #expect(estimator.bitrate == 1_710_000)
        // Near the 1.8 Mbit/s at which loss began: 2 % a second, not 8.
        estimator.update(lossRatio: 0, sending: 1_710_000, at: .seconds(3))
        #expect(abs(estimator.bitrate - 1_744_200) < 1)
        // Sending little: low loss lets it grow no further than 1.5 × what is sent.
        estimator.update(lossRatio: 0, sending: 200_000, at: .seconds(4))
        #expect(abs(estimator.bitrate - 1_744_200) < 1)
    }

    @Test func lossRules_growFastFarBelowWhereLossBegan() {
        // Loss began at 2 Mbit/s; after a deep back-off, 8 % a second until 90 % of it.
        var estimator = LossBasedEstimator(bitrate: 2_000_000)
        estimator.update(lossRatio: 0.5, sending: 2_000_000, at: .seconds(1))
        #expect(estimator.bitrate == 1_500_000)
        estimator.update(lossRatio: 0, sending: 1_500_000, at: .seconds(2))
        #expect(abs(estimator.bitrate - 1_620_000) < 1)
        estimator.update(lossRatio: 0, sending: 1_620_000, at: .seconds(3))
        #expect(abs(estimator.bitrate - 1_749_600) < 1)
        estimator.update(lossRatio: 0, sending: 1_749_600, at: .seconds(4))
        #expect(abs(estimator.bitrate - 1_889_568) < 1)
        estimator.update(lossRatio: 0, sending: 1_889_568, at: .seconds(5))
        #expect(abs(estimator.bitrate - 1_927_359.36) < 1)
    }

    @Test func applicationLimit_entersBelow65PercentAndLeavesAbove80() {
        var detector = ApplicationLimitDetector()
        var changes: [ApplicationLimitDetector.Change] = []
        // 0–1 s at 1 Mbit/s, 1–2 s at 200 kbit/s, 2–3 s at 1 Mbit/s, against a 1 Mbit/s estimate.
        for ms in stride(from: 0, to: 3000, by: 10) {
            let now = Instant.zero + .milliseconds(Int64(ms))
            detector.recordSent(bytes: (1000...1999).contains(ms) ? 250 : 1250, at: now)
            if let change = detector.update(estimate: 1_000_000, at: now) { changes.append(change) }
        }
        #expect(changes == [.entered, .left])
    }

    @Test func probeResult_isTheReceiveRateWhenThePathLimitsIt() {
        var results = ProbeResultEstimator()
        let cluster = ProbeCluster(id: 1, bitrate: 3_000_000, packetCount: 6, bytes: 7200)
        results.expect(cluster, at: .zero)
        var measured: Double?
        for i in 0..<6 {
            // Sent 3.2 ms apart (3 Mbit/s), received 6.4 ms apart (1.5 Mbit/s).
            let entry = SentPacketLog.Entry(
                sequenceNumber: Int64(i), size: 1200, sendTime: .zero + .microseconds(Int64(3200 * i)),
                kind: .probe(cluster: 1), arrival: .microseconds(Int64(50_000 + 6400 * i)))
            if let result = results.add(entry) { measured = result.bitrate }
        }
        #expect(abs(measured! - 0.95 * 1_500_000) < 1)
    }
}
