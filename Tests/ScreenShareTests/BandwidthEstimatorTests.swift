import Media
import Testing
@testable import Sending

/// The sender's target on simulated reports: the cap, the receiver's REMB and
/// the loss its RRs tell of, whichever is least.
struct BandwidthEstimatorTests {
    @Test func withNothingHeardTheCapIsTheTarget() {
        let e = BandwidthEstimator(cap: 4_000_000)
        #expect(e.target(at: .zero) == (4_000_000, .cap))
    }

    @Test func rembBelowTheCapLimitsUntilItIsStale() {
        var e = BandwidthEstimator(cap: 4_000_000)
        e.receiverEstimated(1_200_000, at: .seconds(1))
        #expect(e.target(at: .seconds(2)) == (1_200_000, .receiverEstimate))
        #expect(e.target(at: .seconds(7)).limit == .cap)
    }

    @Test func repeatedHeavyLossConvergesBelowTheLinkEvenWhenTheEncoderOvershoots() {
        // A 1.5 Mbit/s link: the encoder sends 20 % above its target and a quarter is lost.
        var e = BandwidthEstimator(cap: 4_000_000)
        for second in 0..<10 {
            let target = e.target(at: .seconds(Double(second))).bitrate
            let sending = target * 12 / 10
            let loss = max(0, Double(sending - 1_500_000) / Double(sending))
            e.lossReported(loss, sending: sending)
        }
        let target = e.target(at: .seconds(10))
        #expect(target.bitrate < 1_500_000)
        #expect(target.limit == .loss)
    }

    @Test func withoutLossTheEstimateGrowsBackSlowlyToTheCap() {
        var e = BandwidthEstimator(cap: 4_000_000)
        e.lossReported(0.5, sending: 2_000_000)
        let low = e.target(at: .zero).bitrate
        e.lossReported(0, sending: 8_000_000)
        let next = e.target(at: .zero).bitrate
        #expect(next > low && next <= low * 109 / 100, "grows by a few percent a report, whatever is being sent")
        for _ in 0..<40 { e.lossReported(0, sending: 1_000_000) }
        #expect(e.target(at: .zero) == (4_000_000, .cap))
    }

    @Test func moderateLossHolds() {
        var e = BandwidthEstimator(cap: 4_000_000)
        e.lossReported(0.5, sending: 2_000_000)
        let before = e.target(at: .zero).bitrate
        e.lossReported(0.05, sending: 2_000_000)
        #expect(e.target(at: .zero).bitrate == before)
    }
}
