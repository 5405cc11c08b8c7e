import Media
@testable import ScreenShare
import Testing

/// A receiver that vanishes is timed out (docs/behaviour.md §8.5), on a simulated clock.
struct ReceiverLivenessTests {
    @Test func silentForFifteenSecondsAfterFeedback_isLost() {
        var liveness = ReceiverLiveness()
        func lost(_ feedback: Int, at t: Double) -> Bool { liveness.isLost("a", feedback: feedback, now: .seconds(t)) }
        // At 0 s it has sent 3 RTCP packets; at 1 s a fourth; then nothing.
        let timeline = [lost(3, at: 0), lost(4, at: 1), lost(4, at: 15.9), lost(4, at: 16)]
        #expect(timeline == [false, false, false, true])
    }

    @Test func aReceiverThatNeverSendsRTCP_isNeverLost() {
        var liveness = ReceiverLiveness()
        var everLost = false
        for t in stride(from: 0.0, through: 120, by: 1) where liveness.isLost("gst", feedback: 0, now: .seconds(t)) {
            everLost = true
        }
        #expect(!everLost)
    }

    @Test func forgetting_startsAgain() {
        var liveness = ReceiverLiveness()
        _ = liveness.isLost("a", feedback: 2, now: .seconds(0))
        liveness.forget("a")
        let lost = liveness.isLost("a", feedback: 2, now: .seconds(30))
        #expect(!lost)
    }
}
