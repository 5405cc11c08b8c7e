import Congestion
import Media
import Testing

/// A receiver that holds its NACKs for its regular reports (rtpbin does so once early feedback has
/// spent its RTCP share, every 520 ms behind a 1.5 Mbit/s tbf that dropped a third of a 2.3 Mbit/s
/// share): each NACK names every loss since the last, so a window of packets can be judged before
/// the NACK that names its losses comes.
struct HeldNackTests {
    /// A 2 Mbit/s cap, 30 frames a second of seven 1200-byte packets (2 Mbit/s), every fifth packet
    /// lost at a queue of `queue` seconds (50 ms each way besides); the receiver reports at `phase` and every
    /// 520 ms after, naming each loss whose successor has arrived. The loss-based estimate at the end.
    private static func estimate(reportPhase phase: Double, queue: Double, seconds: Double) -> Double {
        var estimator = SendSideBandwidthEstimator(cap: 2_000_000, feedbackKind: .receiverReports)
        let sentAt = { (i: Int) in Double(i / 7) / 30 + 0.001 * Double(i % 7) }
        var named = 0
        var report = phase
        for i in 0..<Int(seconds * 30 * 7) {
            let now = sentAt(i)
            // NACKs reach the sender 50 ms after the report leaves.
            while report + 0.05 <= now {
                let arrived = { (j: Int) in sentAt(j) + 0.05 + queue <= report }
                var numbers: [UInt16] = []
                while named < i, arrived(named + 1) {
                    if named % 5 == 0 { numbers.append(UInt16(named)) }
                    named += 1
                }
                if let newest = numbers.last {
                    let waited = report + 0.05 - sentAt(Int(newest) + 1) - 0.1
                    estimator.onNack(sequenceNumbers: numbers, waited: .seconds(waited), at: .zero + .seconds(report + 0.05))
                }
                report += 0.52
            }
            _ = estimator.onPacketSent(size: 1200, at: .zero + .seconds(now), sequenceNumber: UInt16(i))
        }
        return estimator.lossBasedBitrate
    }

    @Test func heldNacks_everyWindowCountsTheLossItsReportNames_whateverTheReportsPhase() {
        // Behind 400 ms of queue, a report names a window's last losses up to 970 ms after they left,
        // after the window was judged (350 ms after its last packet left). Left out of every window,
        // at some phases of the reports those losses let the estimate climb to 2.4 Mbit/s while a
        // fifth of what was sent was lost. Counted in the next window, they keep it backing off
        // while the loss goes on (the sender here never slows).
        for step in 0..<13 {
            let phase = 0.04 * Double(step)
            let estimate = Self.estimate(reportPhase: phase, queue: 0.4, seconds: 6)
            #expect(estimate <= 500_000, "reports at \(phase) s: \(Int(estimate)) bit/s")
        }
    }
}
