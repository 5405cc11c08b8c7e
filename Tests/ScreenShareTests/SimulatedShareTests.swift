import ControlProtocol
import Media
import Sending
import Testing
@testable import ScreenShare

/// The sender's own wiring in simulated time (docs/behaviour.md §2.5, §4.3):
/// not a re-implementation of who ticks whom, the real threads on a manual clock.
@Suite(.serialized) struct SimulatedShareTests {
    @Test func stillScreen_repeatsItsFrameOnceASecond() throws {
        // At 0 the one frame of a still screen is encoded; then nothing
        // changes, and the last frame is encoded again at 1, 2, … 6.
        let share = try SimulatedShare(scenario: .still)
        defer { share.stop() }
        share.run(for: .milliseconds(6500))
        let counters = share.connection.counters
        #expect(counters.encoded >= 6 && counters.encoded <= 8, "encoded \(counters.encoded) in 6.5 s of a still screen")
        #expect(share.connection.stillRepeats >= 5, "repeats \(share.connection.stillRepeats)")
    }

    @Test func keyframeAskedForOnAStillScreen_isAnsweredAtOnce() throws {
        // Still screen; at 2.5 s, between two repeats, a keyframe is asked
        // for: it is made from the last frame within one frame period, not at 3 s.
        let share = try SimulatedShare(scenario: .still)
        defer { share.stop() }
        share.run(for: .milliseconds(2500))
        let before = share.connection.keyframesMade
        share.connection.requestKeyframe(reason: "PLI")
        share.run(for: .milliseconds(33))
        #expect(share.connection.keyframesMade == before + 1, "keyframes \(before) → \(share.connection.keyframesMade)")
    }

    @Test func encoderThatStops_getsAKeyframeAfterFiveSecondsThenAFreshEncoderThreeSecondsLater() throws {
        // A moving screen; the encoder stops producing at 12 s (past the
        // 10 s grace). Frames keep coming in: at 17 s (5 s after its last
        // output) the watchdog asks for a keyframe, at 20 s it makes a fresh
        // encoder, and frames leave again.
        let share = try SimulatedShare(scenario: .motion, fault: .stops(after: .seconds(12)))
        defer { share.stop() }
        share.run(for: .seconds(20))
        let sentAtTwenty = share.connection.counters.sent
        share.run(for: .seconds(2))
        let keyframe = try #require(share.times(of: "Vicky: keyframe").first)
        let fresh = try #require(share.times(of: "Vicky: fresh encoder").first)
        #expect(keyframe >= 16.9 && keyframe <= 17.6, "keyframe step at \(keyframe) s")
        #expect(fresh - keyframe >= 2.9 && fresh - keyframe <= 3.6, "fresh encoder \(fresh - keyframe) s after the keyframe")
        #expect(share.connection.counters.sent > sentAtTwenty + 30, "frames after the fresh encoder: \(share.connection.counters.sent - sentAtTwenty)")
    }

    /// An encode call that never returns holds up neither a receiver's removal nor the end of the share:
    /// the hung call is abandoned (counted), not waited for.
    @Test func encoderThatHangs_doesNotHoldUpRemovalOrStop() throws {
        let share = try SimulatedShare(scenario: .motion, fault: .hangs(after: .seconds(1)))
        share.run(for: .seconds(2))
        let second = try share.session.addReceiver(ReceiverConfig(id: "second", displayName: "Second", destination: .ipv4Loopback(port: 9),
                                                                  srtp: nil), fault: .hangs(after: .zero))
        share.run(for: .seconds(1))
        #expect(finishes(within: .seconds(20)) { share.session.removeReceiver(second) })
        #expect(second.diagnosticLines.first?.contains("abandoned encoders 1") == true, "\(second.diagnosticLines.first ?? "")")
        #expect(finishes(within: .seconds(20)) { share.stop() })
        #expect(share.connection.diagnosticLines.first?.contains("abandoned encoders 1") == true)
    }
}
