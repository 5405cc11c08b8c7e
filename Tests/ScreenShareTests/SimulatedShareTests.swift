import ControlProtocol
import Events
import Media
import RTP
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

    @Test func lastResortKeyframe_goesOnlyToAReceiverThatNeverAsks() throws {
        // A moving screen for 14 s. A receiver that reports (an RR at 0.5 s) but has sent no PLI
        // has nothing but the last-resort keyframe to recover from a loss with: one comes 300
        // frames (10 s) after the first. One that asked once, at 0.5 s (answered once the first
        // keyframe's repair window and grace have gone by), asks when it needs one: none comes
        // unasked. One that has sent nothing at all may have started after the first keyframe:
        // keyframes at 1, 3 and 7 s, and none more by 14 s.
        enum Receiver: CaseIterable { case reports, asks, silent }
        for receiver in Receiver.allCases {
            let share = try SimulatedShare(scenario: .motion)
            defer { share.stop() }
            share.run(for: .milliseconds(500))
            let ssrc = share.connection.ssrc
            switch receiver {
            case .reports: share.receive(.receiverReport(ReceiverReport(ssrc: 7, reports: [ReceptionReport(ssrc: ssrc)])))
            case .asks: share.receive(.pictureLossIndication(PictureLossIndication(senderSSRC: 7, mediaSSRC: ssrc)))
            case .silent: break
            }
            share.run(until: 4)
            let early = share.connection.keyframesMade
            #expect(early == [.reports: 1, .asks: 2, .silent: 3][receiver], "\(receiver)")
            share.run(until: 14)
            #expect(share.connection.keyframesMade == early + (receiver == .asks ? 0 : 1), "\(receiver)")
        }
    }

    @Test func silentReceiverAddedLater_getsItsOwnEarlyKeyframes() throws {
        // A moving screen to a receiver that never sends anything: its early keyframes came at 1,
        // 3, 7 and 15 s. At 20 s the call client adds a second such receiver (a player of its
        // own): it is sent a keyframe as it joins, and may have opened after that one went by, so
        // the layer makes more 1, 3 and 7 s after it, not only the next of every 300 frames.
        let share = try SimulatedShare(scenario: .motion)
        defer { share.stop() }
        share.run(until: 20)
        #expect(share.connection.keyframesMade == 5, "the first receiver's: at 0, 1, 3, 7 and 15 s")
        let player = try share.session.addReceiver(ReceiverConfig(id: "player", displayName: "Player",
                                                                  destination: .ipv4Loopback(port: 9), srtp: nil))
        share.run(until: 20.5)
        #expect(share.connection.keyframesMade == 6, "the joining stream's own keyframe")
        share.run(until: 27.5)
        #expect(share.connection.keyframesMade == 9, "\(share.connection.keyframesMade - 6) keyframes 0.5–7.5 s after it joined")
        #expect(player.keyframesMade == share.connection.keyframesMade, "one layer")
    }

    @Test func encoderThatStopsOnAShortLink_getsAKeyframeFiveSecondsLater() throws {
        // The receiver's estimate says 1.5 Mbit/s, below the 4 Mbit/s cap, every
        // second, as on a short link. The encoder stops at 12 s while frames
        // keep coming in: a short link does not stop an encoder, so at 17 s
        // the keyframe step, at 20 s the fresh encoder, and frames leave again.
        let share = try SimulatedShare(scenario: .motion, fault: .stops(after: .seconds(12)))
        defer { share.stop() }
        let estimate = ReceiverEstimatedMaximumBitrate(senderSSRC: 7, bitrate: 1_500_000, ssrcs: [share.connection.ssrc])
        share.run(until: 20) { _ in share.receive(.receiverEstimatedMaximumBitrate(estimate)) }
        #expect(share.session.status(of: share.connection).targetBitrate == 1_500_000, "the estimate sets the target")
        #expect(!share.connection.isHeldBackByLink, "a short link with nothing queued holds nothing back")
        let sentAtTwenty = share.connection.counters.sent
        share.run(until: 22) { _ in share.receive(.receiverEstimatedMaximumBitrate(estimate)) }
        let keyframe = try #require(share.times(of: "Vicky: keyframe").first)
        let fresh = try #require(share.times(of: "Vicky: fresh encoder").first)
        #expect(keyframe >= 16.9 && keyframe <= 17.6, "keyframe step at \(keyframe) s")
        #expect(fresh - keyframe >= 2.9 && fresh - keyframe <= 3.6, "fresh encoder \(fresh - keyframe) s after the keyframe")
        #expect(share.connection.counters.sent > sentAtTwenty + 30, "frames after the fresh encoder: \(share.connection.counters.sent - sentAtTwenty)")
    }

    @Test func encoderThatStallsOnAStillScreen_isCaught_andTheLadderDoesNotGiveUp() throws {
        // A still screen: after the first frame only the still-frame repeat goes
        // in, once a second. The encoder stops at 12 s; the receiver reports its
        // view stalled at 16 s. The repeats are frames in that give nothing
        // out: the watchdog's keyframe by 17.6 s and its fresh encoder 3 s
        // later; the repeats leave again, the receiver clears, and the ladder
        // neither passes a step over nor gives up.
        let share = try SimulatedShare(scenario: .still, fault: .stops(after: .seconds(12)))
        defer { share.stop() }
        share.run(until: 16)
        #expect(share.recovery.stallReport(receiverID: "vicky", .stalled))
        var sentAtFresh: Int?
        var cleared = false
        share.run(until: 45) { _ in
            let sent = share.connection.counters.sent
            if sentAtFresh == nil, !share.times(of: "Vicky: fresh encoder").isEmpty { sentAtFresh = sent }
            if let before = sentAtFresh, sent > before, !cleared {
                cleared = share.recovery.stallReport(receiverID: "vicky", .cleared)
            }
        }
        let keyframe = try #require(share.times(of: "Vicky: keyframe — frames came in").first)
        let fresh = try #require(share.times(of: "Vicky: fresh encoder").first)
        #expect(keyframe >= 15.9 && keyframe <= 17.6, "keyframe step at \(keyframe) s")
        #expect(fresh - keyframe >= 2.9 && fresh - keyframe <= 3.6, "fresh encoder \(fresh - keyframe) s after the keyframe")
        #expect(cleared, "repeats leave again after the fresh encoder")
        #expect(share.times(of: "Vicky: skipped").isEmpty, "no step passed over")
        #expect(share.times(of: "Couldn't restore").isEmpty, "no give-up")
    }

    @Test func captureThatStopsOnAStillScreen_isRestartedThoughTheRepeatGoesOn() throws {
        // A still screen whose capture says "alive, nothing changed" each
        // frame, until at 3 s it says nothing at all. The still-frame repeat
        // goes on encoding the last frame every second, but it is not the
        // capture: at 6 s the capture is restarted, and only once.
        let share = try SimulatedShare(scenario: .still, captureStallsAfterFrame: 90)
        defer { share.stop() }
        share.run(until: 3)
        let repeatsAtThree = share.connection.stillRepeats
        share.run(until: 12)
        let restarts = share.times(of: "restarting the capture")
        #expect(restarts.count == 1, "restarts at \(restarts)")
        let restart = try #require(restarts.first)
        #expect(restart >= 5.9 && restart <= 6.6, "restarted at \(restart) s")
        #expect(share.connection.stillRepeats >= repeatsAtThree + 8, "repeats went on: \(share.connection.stillRepeats - repeatsAtThree)")
    }

    @Test func withdrawnReport_isNotTakenForAClearing() throws {
        // screen-receiver's lines as a stand-in call client passes them on:
        // stalled at 12 s; withdrawn at 15 s after being held as long as it
        // may; decoding again at 18 s. Only the last says the view is back.
        let share = try SimulatedShare(scenario: .still, receiverID: StdinCommands.receiverID)
        defer { share.stop() }
        let commands = StdinCommands(session: share.session, recovery: share.recovery,
                                     diagnostics: ShareDiagnostics(session: share.session, recovery: share.recovery),
                                     output: EventOutput(format: .human, level: .error) { _, _ in }) {}
        share.run(until: 12)
        commands.handle(#"{"event":"report","screenStalled":true,"reason":"nothing decoded for 4 s"}"#)
        share.run(until: 15)
        commands.handle(#"{"event":"report","screenStalled":true,"expired":true,"reason":"held for 3 min"}"#)
        share.run(until: 18)
        #expect(share.times(of: "view is back").isEmpty, "a withdrawn report is no clearing")
        #expect(!share.times(of: "Couldn't restore Vicky's view").isEmpty, "withdrawn before the ladder's end: said so")
        commands.handle(#"{"event":"report","screenStalled":false,"reason":"decoding again"}"#)
        share.run(until: 19)
        #expect(share.times(of: "view is back").count == 1)
    }

    @Test func receiverThatSendsNothing_keepsTheCapAndTheStatusSaysSo() throws {
        // Plain RTP to a socket nobody reads: no RR, no NACK, no REMB. At 3 s
        // the target is still the 4 Mbit/s cap and line 1 says why.
        let share = try SimulatedShare(scenario: .motion)
        defer { share.stop() }
        share.run(for: .seconds(3))
        let status = share.connection.status(capturedFPS: 30, watchdog: "watching")
        #expect(status.targetBitrate == 4_000_000)
        #expect(status.feedback == .none)
        #expect(status.limitation == .none)
        #expect(status.firstLine.contains("no feedback from the receiver"), "\(status.firstLine)")
    }
}

/// docs/behaviour.md §3.2: Text and detail sends the frame rate its bits afford, not the next divisor of the share's.
@Suite(.serialized) struct DetailFrameRateTests {
    @Test func detailAffordingEightFramesASecond_sendsEight() throws {
        // 1.3 Mbit/s cap, no feedback: the encoder aims at 1.105 Mbit/s, and 0.06 bits a pixel of 1920×1080
        // affords 8 fps. Spaced 125 ms from the last encode, the frames came every 4th capture (7.5 fps).
        let share = try SimulatedShare(scenario: .motion, width: 1920, height: 1080, policy: .detail, cap: 1_300_000)
        defer { share.stop() }
        share.run(for: .seconds(2))
        let before = share.connection.counters.encoded
        share.run(for: .seconds(10))
        let encoded = share.connection.counters.encoded - before
        #expect(encoded >= 78 && encoded <= 82, "encoded \(encoded) frames in 10 s")
    }
}
