import ControlProtocol
import Congestion
import Encoding
import Media
import RTP
@testable import Sending
import Testing
@testable import ScreenShare

/// Receivers sharing one encoder (docs/behaviour.md §12), with the real
/// threads on a manual clock: each receiver its own stream, one encode for all.
@Suite(.serialized) struct EncoderLayerTests {
    /// Plain RTP to sockets nobody reads: no feedback, so every receiver stays at the cap.
    private func share(viewers: Int, width: Int = 320, height: Int = 180) throws -> (SimulatedShare, [SenderConnection]) {
        let share = try SimulatedShare(scenario: .motion, width: width, height: height)
        let others = try (1...viewers).map { try share.addViewer("viewer\($0)") }
        return (share, [share.connection] + others)
    }

    /// The viewers join while the first keyframe, at 1280×720, is still being encoded: the
    /// keyframe each asked for is that one, which none of them gets; another must follow.
    @Test func receiversOfOneStream_shareOneEncoder_andEachIsSentEveryFrame() throws {
        let (share, all) = try share(viewers: 3, width: 1280, height: 720)
        defer { share.stop() }
        share.run(for: .seconds(4))
        let layer = all[0].layerFigures
        #expect(share.session.layerLine.hasPrefix("layers: 1,"), "\(share.session.layerLine)")
        #expect(layer.members == 4)
        #expect(all.allSatisfy { $0.layerFigures.id == layer.id })
        #expect(layer.counts.framesEncoded >= 90, "encoded \(layer.counts.framesEncoded) in 4 s")
        // Each receiver is sent what the one encoder made, from its first keyframe on, under its own
        // SSRC; a joiner's keyframe comes at most 300 ms (9 frames) after the one it missed.
        for c in all {
            #expect(c.counters.sent >= layer.counts.framesEncoded - 12, "\(c.config.id): sent \(c.counters.sent) of \(layer.counts.framesEncoded)")
        }
        #expect(Set(all.map(\.ssrc)).count == 4)
    }

    @Test func keyframesAskedForByEveryReceiver_areOneIDRForTheLayer() throws {
        let (share, all) = try share(viewers: 2)
        defer { share.stop() }
        share.run(for: .seconds(2))
        let before = all[0].keyframesMade
        for c in all { c.requestKeyframe(reason: "PLI") }
        share.run(for: .milliseconds(200))
        #expect(all[0].keyframesMade == before + 1, "keyframes \(before) → \(all[0].keyframesMade)")
    }

    /// The ladder's rebuild gives one person a new stream and a new decoder;
    /// the others' streams carry on under their SSRCs, not restarted.
    @Test func rebuildForOneReceiver_leavesTheOthersStreamsAlone() throws {
        let (share, all) = try share(viewers: 1)
        defer { share.stop() }
        share.run(for: .seconds(2))
        let (rebuilt, other) = (all[0], all[1])
        let (oldSSRC, otherSSRC) = (rebuilt.ssrc, other.ssrc)
        let otherSent = other.counters.sent
        let newSSRC = rebuilt.newTransceiver(reason: "rebuild")
        let rebuiltSent = rebuilt.counters.sent
        share.run(for: .seconds(1))
        #expect(newSSRC != oldSSRC && rebuilt.ssrc == newSSRC)
        #expect(other.ssrc == otherSSRC)
        #expect(other.counters.sent >= otherSent + 25, "the other was sent \(other.counters.sent - otherSent) frames in 1 s")
        #expect(rebuilt.counters.sent >= rebuiltSent + 20, "the rebuilt stream was sent \(rebuilt.counters.sent - rebuiltSent) frames in 1 s")
        #expect(all.allSatisfy { $0.layerFigures.counts.encodeGeneration == 0 }, "a rebuild makes no new encoder")
    }

    /// A receiver whose estimate falls to a lower class moves to a layer of
    /// that class, and the others' encoder keeps their rate; when its estimate
    /// is back it returns, and the lower layer goes.
    @Test func receiverWhoseEstimateFalls_movesToALowerLayer_andBackWhenItRises() throws {
        let (share, all) = try share(viewers: 1)
        defer { share.stop() }
        let (fast, slow) = (all[0], all[1])
        share.run(for: .seconds(2))
        func remb(_ bitrate: UInt64) {
            share.receive(.receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate(senderSSRC: 7, bitrate: bitrate, ssrcs: [slow.ssrc])),
                          to: slow)
        }
        for _ in 0..<6 {
            remb(400_000)
            share.run(for: .seconds(1))
        }
        #expect(share.session.layerLine.hasPrefix("layers: 2,"), "\(share.session.layerLine)")
        #expect(fast.layerFigures.id != slow.layerFigures.id)
        let fastRate = try #require(fast.layerFigures.counts.encoderSettings?.bitrate)
        let slowRate = try #require(slow.layerFigures.counts.encoderSettings?.bitrate)
        // Shared, both were at the slower one's rate; the 320×180 picture's level holds the faster at 768 kbit/s.
        #expect(fastRate > 2 * slowRate && slowRate <= 400_000, "encoders at \(fastRate) and \(slowRate) bit/s")
        let sent = slow.counters.sent
        share.run(for: .seconds(1))
        #expect(slow.counters.sent >= sent + 20, "the moved receiver was sent \(slow.counters.sent - sent) frames in 1 s")

        for _ in 0..<6 {
            remb(4_000_000)
            share.run(for: .seconds(1))
        }
        #expect(share.session.layerLine.hasPrefix("layers: 1,"), "\(share.session.layerLine)")
        #expect(fast.layerFigures.id == slow.layerFigures.id)
    }

    /// A member whose pacer holds more than half a second (a backlog its link has yet to carry)
    /// while another's does not: it misses frames, and takes the stream again from a keyframe,
    /// rather than hold the other up.
    @Test func receiverFarBehind_missesFrames_theOthersDoNot() throws {
        let (share, all) = try share(viewers: 1)
        defer { share.stop() }
        let (fast, slow) = (all[0], all[1])
        share.run(for: .seconds(2))
        share.receive(.receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate(senderSSRC: 7, bitrate: 100_000, ssrcs: [slow.ssrc])),
                      to: slow)
        share.run(for: .milliseconds(300))
        let backlog = [UInt8](repeating: 0x80, count: 1200)
        for n in 0..<60 {
            let info = PacketInfo(ssrc: slow.ssrc, sequence: UInt16(n), timestamp: 0, marker: false, keyframe: false, kind: .media,
                                  payloadLength: backlog.count - 12)
            slow.queue.push(info) { buffer in backlog.withUnsafeBytes { buffer.copyMemory(from: $0) }; return backlog.count }
        }
        #expect(slow.pacerDelay > .milliseconds(500), "backlog \(slow.pacerDelay)")
        let sent = fast.counters.sent
        share.run(for: .seconds(1))
        #expect(fast.layerFigures.counts.framesMissedBehind > 0, "the slow receiver was never skipped")
        // Held for everyone only while the slow one's keyframe, once its backlog is gone, drains
        // (3–4 frames); with no skipping, 35 frames were held and the other was sent none.
        #expect(fast.layerFigures.counts.framesHeldForLink <= 6, "frames held for everyone: \(fast.layerFigures.counts.framesHeldForLink)")
        #expect(fast.counters.sent >= sent + 24, "the other was sent \(fast.counters.sent - sent) frames in 1 s")
    }

    /// The ladder for one member of a shared layer whose view never comes back: keyframes at the
    /// report, its rebuild 6 s later, the share-again 10 s after that, the give-up 10 s on; the
    /// other member's stream goes on all the while, restarted only by the share-again.
    @Test func ladderForOneMember_keepsItsSchedule_whileTheOtherIsSentEveryFrame() throws {
        let (share, all) = try share(viewers: 1)
        defer { share.stop() }
        let (other, wedged) = (all[0], all[1])
        share.run(until: 3)
        let otherSSRC = other.ssrc
        #expect(share.recovery.stallReport(receiverID: wedged.config.id, .stalled))
        var sent = other.counters.sent
        var perSecond: [(at: Double, frames: Int)] = []
        share.run(until: 32) { at in
            perSecond.append((at, other.counters.sent - sent))
            sent = other.counters.sent
        }
        let rebuild = try #require(share.times(of: "\(wedged.config.displayName): new transceiver").first)
        let again = try #require(share.times(of: "Sharing again for everyone").first)
        let gaveUp = try #require(share.times(of: "Couldn't restore").first)
        #expect(abs(rebuild - 9) <= 1, "rebuild at \(rebuild) s")
        #expect(abs(again - rebuild - 10) <= 1, "share-again \(again - rebuild) s after the rebuild")
        #expect(abs(gaveUp - again - 10) <= 1, "gave up \(gaveUp - again) s after the share-again")
        #expect(share.times(of: "\(other.config.displayName): new transceiver").count == 1, "the other's stream restarted only for the share-again")
        #expect(other.ssrc != otherSSRC)
        #expect(share.session.layerLine.hasPrefix("layers: 1,"), "\(share.session.layerLine)")
        let short = perSecond.filter { $0.frames < 25 && abs($0.at - again) > 1.5 }
        #expect(short.isEmpty, "seconds with fewer than 25 frames for the other: \(short)")
    }

    /// Every member of a layer whose class changes in the same look: they take the layer with
    /// them, as one receiver alone does, rather than all move to a new encoder and its keyframe.
    @Test func membersWhoseClassChangesAlike_keepTheirEncoder() throws {
        let (share, all) = try share(viewers: 1)
        defer { share.stop() }
        share.run(for: .seconds(2))
        let (layer, keyframes) = (all[0].layerFigures.id, all.map(\.keyframesMade))
        for _ in 0..<6 {
            for c in all {
                share.receive(.receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate(senderSSRC: 7, bitrate: 400_000, ssrcs: [c.ssrc])),
                              to: c)
            }
            share.run(for: .seconds(1))
        }
        let rate = try #require(all[0].layerFigures.counts.encoderSettings?.bitrate)
        #expect(rate <= 400_000, "the layer follows its members down: \(rate) bit/s")
        #expect(share.session.layerLine.hasPrefix("layers: 1,") && share.session.layerLine.contains("class 2"), "\(share.session.layerLine)")
        #expect(all.allSatisfy { $0.layerFigures.id == layer })
        #expect(all.map(\.keyframesMade) == keyframes)
    }

    /// Two receivers behind one uplink, fallen together: one's estimate rising alone, above the
    /// rate the layer sends it, keeps it on the layer; it is untried, and a second encoder on
    /// the same uplink would contend with the first. Rising together, they keep their encoder.
    @Test func aMemberWhoseEstimateAloneRises_staysOnItsLayer() throws {
        let (share, all) = try share(viewers: 1)
        defer { share.stop() }
        share.run(for: .seconds(2))
        func remb(_ bitrate: UInt64, _ connections: [SenderConnection]) {
            for c in connections {
                share.receive(.receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate(senderSSRC: 7, bitrate: bitrate, ssrcs: [c.ssrc])),
                              to: c)
            }
        }
        for _ in 0..<6 {
            remb(400_000, all)
            share.run(for: .seconds(1))
        }
        let layer = all[0].layerFigures.id
        #expect(share.session.layerLine.hasPrefix("layers: 1,") && share.session.layerLine.contains("class 2"), "\(share.session.layerLine)")
        for _ in 0..<6 {
            remb(4_000_000, [all[0]])
            remb(400_000, [all[1]])
            share.run(for: .seconds(1))
        }
        #expect(share.session.layerLine.hasPrefix("layers: 1,"), "\(share.session.layerLine)")
        #expect(all.allSatisfy { $0.layerFigures.id == layer })
        let keyframes = all.map(\.keyframesMade)
        for _ in 0..<6 {
            remb(4_000_000, all)
            share.run(for: .seconds(1))
        }
        #expect(share.session.layerLine.hasPrefix("layers: 1,") && !share.session.layerLine.contains("class 2"), "\(share.session.layerLine)")
        #expect(all.allSatisfy { $0.layerFigures.id == layer })
        #expect(all.map(\.keyframesMade) == keyframes)
    }

    /// One receiver alone takes its layer with it: no new encoder, no keyframe, for a change of class.
    @Test func aReceiverAlone_keepsItsEncoderWhenItsClassChanges() throws {
        let share = try SimulatedShare(scenario: .motion)
        defer { share.stop() }
        share.run(for: .seconds(2))
        let (layer, keyframes) = (share.connection.layerFigures.id, share.connection.keyframesMade)
        for _ in 0..<6 {
            share.receive(.receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate(senderSSRC: 7, bitrate: 400_000,
                                                                                          ssrcs: [share.connection.ssrc])))
            share.run(for: .seconds(1))
        }
        #expect(share.connection.layerFigures.id == layer)
        #expect(share.connection.keyframesMade == keyframes)
    }
}

/// The bitrate classes and their hysteresis, on plain instants.
struct LayerBandTests {
    @Test func classes_areHalvingsOfTheTop() {
        #expect(LayerBand.natural(target: 4_000_000, top: 4_000_000) == 0)
        #expect(LayerBand.natural(target: 2_000_000, top: 4_000_000) == 0)
        #expect(LayerBand.natural(target: 1_999_999, top: 4_000_000) == 1)
        #expect(LayerBand.natural(target: 1_000_000, top: 4_000_000) == 1)
        #expect(LayerBand.natural(target: 300_000, top: 4_000_000) == 2)
    }

    @Test func aChange_needsAQuarterPastTheEdge_forThreeSeconds() {
        var band = LayerBand(target: 4_000_000, top: 4_000_000)
        func moved(_ target: Int, at seconds: Double) -> Bool {
            band.update(target: target, layerRate: target, top: 4_000_000, at: .seconds(seconds))
        }
        // Just under the edge (2 Mbit/s) is not a quarter past it.
        #expect(!moved(1_700_000, at: 0))
        #expect(!moved(1_700_000, at: 10))
        #expect(band.band == 0)
        // Well under it: only after three seconds there.
        #expect(!moved(1_500_000, at: 20))
        #expect(!moved(1_500_000, at: 22))
        #expect(moved(1_500_000, at: 23))
        #expect(band.band == 1)
        // A dip back inside the margin starts the wait again.
        #expect(!moved(2_600_000, at: 30))
        #expect(!moved(2_400_000, at: 32))
        #expect(!moved(2_600_000, at: 33))
        #expect(!moved(2_600_000, at: 35))
        #expect(moved(2_600_000, at: 36))
        #expect(band.band == 0)
    }

    /// A receiver sent a lower rate than its own target rises no higher than that rate: its
    /// estimate above it is untried. It still falls on its own target.
    @Test func aRise_countsOnlyAsFarAsTheLayersRate() {
        var band = LayerBand(target: 800_000, top: 4_000_000)
        func moved(_ target: Int, sent layerRate: Int, at seconds: Double) -> Bool {
            band.update(target: target, layerRate: layerRate, top: 4_000_000, at: .seconds(seconds))
        }
        #expect(band.band == 2)
        // 1.3 Mbit/s is a quarter past the 1 Mbit/s edge, but the layer is sent 0.9.
        for second in 0...6 { #expect(!moved(1_300_000, sent: 900_000, at: Double(second))) }
        #expect(band.band == 2)
        // Sent 1.3 itself, it rises after the dwell.
        #expect(!moved(1_300_000, sent: 1_300_000, at: 10))
        #expect(moved(1_300_000, sent: 1_300_000, at: 13))
        #expect(band.band == 1)
        // Its own target falling moves it down, whatever the layer's rate.
        #expect(!moved(700_000, sent: 600_000, at: 20))
        #expect(moved(700_000, sent: 600_000, at: 23))
        #expect(band.band == 2)
    }
}

/// Which members a frame skips and whether it is held, on plain durations.
struct LayerBacklogTests {
    @Test func aMemberAlone_isHeldBack_neverSkipped() {
        for (delay, awaiting) in [(Duration.milliseconds(300), true), (.milliseconds(900), false)] {
            let backlog = LayerState.backlog(delays: [delay], awaitingKeyframe: [awaiting])
            #expect(backlog.held && backlog.skip == [false], "\(delay), awaiting \(awaiting)")
        }
    }

    @Test func farBehindWhileAnotherKeepsUp_isSkipped_andHoldsNoOneUp() {
        let far = LayerState.backlog(delays: [.milliseconds(20), .milliseconds(600)], awaitingKeyframe: [false, false])
        #expect(!far.held && far.skip == [false, true])
        // Back under 500 ms but still waiting for its keyframe: still skipped.
        let draining = LayerState.backlog(delays: [.milliseconds(20), .milliseconds(300)], awaitingKeyframe: [false, true])
        #expect(!draining.held && draining.skip == [false, true])
        // Past 250 ms and not waiting: held for all, as for one receiver.
        let behind = LayerState.backlog(delays: [.milliseconds(20), .milliseconds(300)], awaitingKeyframe: [false, false])
        #expect(behind.held && behind.skip == [false, false])
        // Nobody keeps up: nobody is skipped.
        let all = LayerState.backlog(delays: [.milliseconds(300), .milliseconds(600)], awaitingKeyframe: [true, false])
        #expect(all.held && all.skip == [false, false])
    }
}

/// When a keyframe waits for a shorter queue (docs/behaviour.md §7.5).
struct KeyframeWaitTests {
    @Test func aKeyframe_waitsPast100ms_forAtMostHalfASecondFromWhenItFirstWaited() {
        var state = LayerState(share: ShareParameters(policy: .balanced, fps: 30), started: .zero)
        func waits(_ delays: [Int], at seconds: Double) -> Bool {
            state.keyframeWaits(delays: delays.map { .milliseconds($0) }, now: .seconds(seconds))
        }
        #expect(!waits([90], at: 10), "a queue of 90 ms does not hold it")
        #expect(waits([120], at: 10))
        #expect(waits([20, 120], at: 10.2), "any member's queue holds it")
        #expect(waits([120], at: 10.49))
        #expect(!waits([120], at: 10.5), "half a second after it first waited, it goes")
        // Made, the next one due waits afresh.
        state.keyframeWaitingSince = nil
        #expect(waits([300], at: 20))
        // A queue that shrinks past 100 ms lets it go, and one that grows again starts a new wait.
        #expect(!waits([80], at: 20.3))
        #expect(waits([150], at: 20.4))
        #expect(waits([150], at: 20.8))
        #expect(!waits([150], at: 20.9))
    }
}

/// The rate a layer's encoder is set to (docs/behaviour.md §7.7).
struct LayerPlanTests {
    /// Balanced at 960×540 after a fall, then at `target` for 6 s: the width it grew to.
    static func balancedWidth(after target: SendSideBandwidthEstimator.Target, seesQueueing: Bool) -> Int {
        var state = LayerState(share: ShareParameters(policy: .balanced, fps: 30), started: .zero)
        state.keyframesMade = 1
        func width(_ target: SendSideBandwidthEstimator.Target, at seconds: Double) -> Int {
            state.plan(sourceWidth: 1920, sourceHeight: 1080, target: target, codec: .h264(.chromiumDefault), seesQueueing: seesQueueing,
                       now: .seconds(seconds), levelLimit: nil).settings.width
        }
        _ = width(.init(bitrate: 700_000, limit: .loss), at: 0)
        return (10...70).map { width(target, at: Double($0) / 10) }.last!
    }

    @Test func balanced_growsIntoPartOfAnEstimateFromLossAlone() {
        // docs/behaviour.md §3.2: 1.8 Mbit/s gives 1280×720 0.055 bits a pixel at the encoder's
        // 0.85 of it; from loss alone only 0.8 of that counts, 0.044, under the 0.05 to grow.
        #expect(Self.balancedWidth(after: .init(bitrate: 700_000, limit: .loss), seesQueueing: false) == 960)
        #expect(Self.balancedWidth(after: .init(bitrate: 1_800_000, limit: .loss), seesQueueing: false) == 960)
        #expect(Self.balancedWidth(after: .init(bitrate: 1_800_000, limit: .receiverEstimate), seesQueueing: false) == 1280)
        #expect(Self.balancedWidth(after: .init(bitrate: 1_800_000, limit: .delay), seesQueueing: true) == 1280)
    }

    @Test func theFirstPicture_startsTheBufferAtTheLeastTheRateAllows_thenTheTargetsBuffer() {
        // No feedback yet from a receiver without transport-wide feedback: the target is the cap.
        var state = LayerState(share: ShareParameters(policy: .balanced, fps: 30), started: .zero)
        let cap = SendSideBandwidthEstimator.Target(bitrate: 4_000_000, limit: .noFeedback)
        func plan() -> EncoderSettings {
            state.plan(sourceWidth: 1920, sourceHeight: 1080, target: cap, codec: .h264(.chromiumDefault), seesQueueing: false, now: .zero,
                       levelLimit: nil).settings
        }
        // The start rate's buffer (60 kbit) is under a frame period of the rate: the buffer starts
        // that full, and is the target's size from the first.
        let first = plan()
        #expect(first.bitrate == 3_400_000 && first.bufferBits == 800_000 && first.initialBufferBits == 3_400_000 / 30, "\(first)")
        state.keyframesMade = 1
        let next = plan()
        #expect(next.bitrate == 3_400_000 && next.bufferBits == 800_000 && next.initialBufferBits == nil, "\(next)")
        // The size is the target's from the first: the frames after refine the first picture.
        #expect(first.width == 1920 && next.width == first.width && next.height == first.height)
    }

    @Test func anEncoderThatSendsShort_isAskedForMore_onlyWhereQueueingDelayKeepsTheTarget() {
        // docs/behaviour.md §3.3: the encoder sent 0.85 of what it was asked for, a second of frames.
        var state = LayerState(share: ShareParameters(policy: .balanced, fps: 30), started: .zero)
        state.keyframesMade = 1
        let target = SendSideBandwidthEstimator.Target(bitrate: 1_500_000, limit: .delay)
        func plan(_ makeUp: Bool, resending: Double = 0) -> EncoderSettings {
            state.plan(sourceWidth: 1920, sourceHeight: 1080, target: target, codec: .h264(.chromiumDefault), seesQueueing: makeUp,
                       resending: resending, now: .zero, levelLimit: nil).settings
        }
        let meant = plan(false).bitrate
        #expect(meant == 1_275_000)
        for frame in 0...30 {
            state.rateAdjuster.record(frameBits: Int(0.85 * Double(meant) / 30), askedBits: Double(meant) / 30,
                                      bufferBits: plan(false).bufferBits, at: .zero + .milliseconds(34 * frame))
        }
        #expect(plan(true).bitrate > meant && plan(true).bitrate <= Int(1.15 * Double(meant)), "\(plan(true))")
        // The raise gives way to retransmissions, out of the most it may ask (1.15 × 1.275 Mbit/s):
        // 100 kbit/s of them leave room for 1.366 Mbit/s, 200 kbit/s for none beyond what the
        // encoder is meant to send.
        #expect(plan(true, resending: 100_000).bitrate == 1_366_250, "\(plan(true, resending: 100_000))")
        #expect(plan(true, resending: 200_000).bitrate == meant)
        // With loss alone to say where the link ends, the shortfall is the margin the loss rules keep.
        #expect(plan(false).bitrate == meant)
        // Sizes are chosen on what the encoder is meant to send.
        #expect(plan(true).width == plan(false).width)
    }
}
