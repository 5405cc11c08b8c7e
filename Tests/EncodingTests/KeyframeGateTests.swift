import Encoding
import Media
import Testing

struct KeyframeGateTests {
    @Test func firstRequestIsAnsweredAtOnce() {
        var gate = KeyframeGate()
        gate.request(at: .seconds(1))
        #expect(gate.shouldEncodeKeyframe(at: .seconds(1)))
    }

    @Test func pliEvery200msYieldsOneIDREvery300msAtMost() {
        // At 0 s an IDR; PLIs at 0.2, 0.4, 0.6 … 2.0 s; frames every 33 ms.
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .zero)
        var idrs: [Instant] = []
        var t = Instant.zero
        var nextPLI = Instant.seconds(0.2)
        while t < .seconds(2) {
            if t >= nextPLI {
                gate.request(at: t)
                nextPLI = nextPLI + .milliseconds(200)
            }
            if gate.shouldEncodeKeyframe(at: t) {
                gate.keyframeEncoded(at: t)
                idrs.append(t)
            }
            t = t + .nanoseconds(33_333_333)
        }
        for (a, b) in zip([Instant.zero] + idrs, idrs) {
            #expect(b - a >= KeyframeGate.minimumInterval)
        }
        #expect(idrs.count >= 4)
    }

    /// The frames that were keyframes, at 30 fps on a link that is the limit: one asked for at
    /// the start, one for each stream that joins (`joins`), and the last resort's. `silent`: the
    /// silent streams at each frame.
    func lastResortKeyframes(frames: Int, needed: Bool, joins: Set<Int> = [],
                             silent: (Int) -> Set<UInt32> = { _ in [] }) -> [Int] {
        var gate = KeyframeGate()
        var keyframes: [Int] = []
        for frame in 0..<frames {
            let now = Instant.zero + .nanoseconds(Int64(frame) * 33_333_333)
            if frame == 0 { gate.request(at: now) }
            // As the layer does: a stream without a keyframe asks before the last resort is looked at.
            if joins.contains(frame) { gate.request(at: now, by: .streamWithoutKeyframe) }
            gate.lastResort(at: now, needed: needed, silent: silent(frame))
            if gate.shouldEncodeKeyframe(at: now, linkLimited: true) {
                gate.keyframeEncoded(at: now)
                keyframes.append(frame)
            } else {
                gate.frameEncoded()
            }
        }
        return keyframes
    }

    @Test func lastResortKeyframe_every300Frames_onlyWhileAReceiverNeverAsks() {
        // 25 s. Needed: a keyframe after each 300 frames, and none sooner. Not needed (every
        // receiver asks when it needs one): none after the first.
        #expect(lastResortKeyframes(frames: 750, needed: true) == [0, 301, 602])
        #expect(lastResortKeyframes(frames: 750, needed: false) == [0])
    }

    @Test func lastResortKeyframe_whileAReceiverIsSilent_comesSooner_fourTimes() {
        // 40 s, a receiver that never asks. Silent (nothing at all from it: a player that may
        // have started after the first keyframe): keyframes at 1, 3, 7 and 15 s (each on the
        // first frame at or past it: frames are a hair under 1/30 s apart), then 300 frames after
        // the last. Heard from (its reports came): 300 frames apart only.
        #expect(lastResortKeyframes(frames: 1200, needed: true, silent: { _ in [1] }) == [0, 31, 92, 213, 454, 755, 1056])
        #expect(lastResortKeyframes(frames: 1200, needed: true) == [0, 301, 602, 903])
    }

    @Test func lastResortKeyframe_aSilentStreamThatJoinsLater_getsItsOwnEarlyOnes() {
        // 40 s. A silent stream from the start: keyframes at 1, 3, 7 and 15 s, then 300 frames
        // apart. A second silent stream joins at 20 s (frame 600) and is sent a keyframe at once;
        // its player too may open after that one went by, so the early keyframes come again, 1, 3,
        // 7 and 15 s after it. The first stream leaving at 25 s (frame 750) starts nothing.
        let streams = { (frame: Int) -> Set<UInt32> in frame < 600 ? [1] : frame < 750 ? [1, 2] : [2] }
        #expect(lastResortKeyframes(frames: 1200, needed: true, joins: [600], silent: streams)
                == [0, 31, 92, 213, 454, 600, 631, 692, 813, 1054])
        // Joined by a stream that is heard from: the 300-frame rule carries on from that keyframe.
        #expect(lastResortKeyframes(frames: 1200, needed: true, joins: [600], silent: { _ in [1] })
                == [0, 31, 92, 213, 454, 600, 901])
    }

    @Test func requestWithinIntervalWaitsUntilItEnds() {
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .seconds(1))
        gate.request(at: .seconds(1.1))
        #expect(!gate.shouldEncodeKeyframe(at: .seconds(1.2)))
        #expect(gate.earliestKeyframe() == .seconds(1.3))
        #expect(gate.shouldEncodeKeyframe(at: .seconds(1.3)))
    }

    @Test func manyRequestsCoalesceIntoOne() {
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .zero)
        for ms in [100, 150, 200, 250] { gate.request(at: .zero + .milliseconds(ms)) }
        gate.keyframeEncoded(at: .seconds(0.3))
        #expect(gate.requestsAnswered == 1)
        #expect(gate.requestsCoalesced == 3)
        #expect(!gate.isPending)
    }

    /// An IDR at 1 s, in the pacer until 1.25 s; PLIs at 1.1 s (queued) and 1.4 s (being
    /// repaired), each with a 250 ms repair window.
    static func twoRequestsLeftToARepair() -> KeyframeGate {
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .seconds(1))
        gate.request(at: .seconds(1.1), by: .receiver, repairWindow: .milliseconds(250))
        gate.keyframeSent(at: .seconds(1.25))
        gate.request(at: .seconds(1.4), by: .receiver, repairWindow: .milliseconds(250))
        return gate
    }

    @Test func receiversRequestWhileTheKeyframeIsInFlight_isLeftToItsRepair() {
        // 1 s: an IDR is made; it is in the pacer until 1.25 s; the repair
        // window is 250 ms. PLIs at 1.1 s (queued) and 1.4 s (being repaired)
        // make nothing; a PLI at 1.6 s is a new loss: an IDR, at once.
        var gate = Self.twoRequestsLeftToARepair()
        #expect(!gate.isPending)
        #expect(gate.requestsLeftToRepair == 2 && gate.requestsCoalesced == 2)
        gate.request(at: .seconds(1.6), by: .receiver, repairWindow: .milliseconds(250))
        #expect(gate.shouldEncodeKeyframe(at: .seconds(1.6)))
    }

    @Test func aRequestLeftToARepair_isAnsweredThreeQuartersOfASecondAfterItsWindow_unlessAKeyframeCame() {
        // 1 s: an IDR; PLIs at 1.1 s and 1.4 s are left to its repair (window
        // 250 ms). A receiver that asks only when it gives a packet up does
        // not ask again if the repair failed: an IDR at 2.1 s all the same.
        let gate = Self.twoRequestsLeftToARepair()
        #expect(!gate.isPending)
        #expect(gate.earliestKeyframe(linkLimited: true) == .seconds(2.1))
        #expect(!gate.shouldEncodeKeyframe(at: .seconds(2.05), linkLimited: true))
        #expect(gate.shouldEncodeKeyframe(at: .seconds(2.1), linkLimited: true))
        // A keyframe before then (a size change, another request) answers it.
        var answered = KeyframeGate()
        answered.keyframeEncoded(at: .seconds(1))
        answered.request(at: .seconds(1.1), by: .receiver, repairWindow: .milliseconds(250))
        answered.keyframeEncoded(at: .seconds(2))
        #expect(answered.earliestKeyframe() == nil)
        #expect(answered.requestsAnswered == 1)
    }

    @Test func aRequestAfterTheKeyframeLeft_withNothingResentSinceIt_isAnsweredWhenItsWindowEnds() {
        // 1 s: an IDR, whose last packet left at 1.25 s; a PLI at 1.4 s (window 250 ms). Nothing
        // resent since the IDR: the receiver gave it up for coming late, and no repair is under
        // way: an IDR at 1.65 s, or at 2 s while the link is the limit. A resend at 1.3 s is a
        // repair under way: the 0.75 s after the window hold, to 2.4 s. One before the IDR is not.
        var gate = KeyframeGate()
        gate.resent(at: .seconds(0.9))
        gate.keyframeEncoded(at: .seconds(1))
        gate.keyframeSent(at: .seconds(1.25))
        gate.request(at: .seconds(1.4), by: .receiver, repairWindow: .milliseconds(250))
        #expect(!gate.isPending && gate.requestsLeftToRepair == 1)
        #expect(gate.earliestKeyframe() == .seconds(1.65))
        #expect(gate.earliestKeyframe(linkLimited: true) == .seconds(2))
        gate.resent(at: .seconds(1.3))
        #expect(gate.earliestKeyframe() == .seconds(2.4))
    }

    @Test func aStreamWithoutTheKeyframeInFlight_isNotLeftToItsRepair_butIsSpacedAsAReceiver() {
        // 1 s: an IDR, still in the pacer; a stream that joined after it began asks at 1.1 s. The
        // repair of a keyframe it was never sent cannot help it: an IDR at 1.3 s, or a second after
        // the last while the link is the limit.
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .seconds(1))
        gate.request(at: .seconds(1.1), by: .streamWithoutKeyframe, repairWindow: .milliseconds(250))
        #expect(gate.isPending && gate.requestsLeftToRepair == 0)
        #expect(gate.shouldEncodeKeyframe(at: .seconds(1.3)))
        #expect(gate.earliestKeyframe(linkLimited: true) == .seconds(2))
    }

    @Test func recoveryGetsItsKeyframeEvenDuringARepair() {
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .seconds(1))
        gate.request(at: .seconds(1.1), by: .recovery)
        #expect(gate.isPending)
        #expect(!gate.shouldEncodeKeyframe(at: .seconds(1.2), linkLimited: true))
        #expect(gate.shouldEncodeKeyframe(at: .seconds(1.3), linkLimited: true))
    }

    @Test func whileTheLinkIsTheLimit_receiversKeyframesAreASecondApart() {
        // 0 s an IDR, long since sent; a PLI at 0.5 s waits until 1 s while
        // the link is the limit, and not at all when the cap is.
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .zero)
        gate.keyframeSent(at: .seconds(0.05))
        gate.request(at: .seconds(0.5), by: .receiver, repairWindow: .milliseconds(200))
        #expect(gate.earliestKeyframe(linkLimited: true) == .seconds(1))
        #expect(!gate.shouldEncodeKeyframe(at: .seconds(0.9), linkLimited: true))
        #expect(gate.shouldEncodeKeyframe(at: .seconds(0.5), linkLimited: false))
        // A recovery request joining it lifts the second's wait.
        gate.request(at: .seconds(0.6), by: .recovery)
        #expect(gate.shouldEncodeKeyframe(at: .seconds(0.6), linkLimited: true))
    }

    @Test func aKeyframeWhoseEndLeftBeforeTheEncodeReturned_isNotInFlight() {
        // An encode from 1 s to 1.02 s makes an IDR whose last slice left at 1.01 s, before the
        // call returned. A PLI at 1.3 s (window 250 ms) is past its repair: an IDR at 1.32 s,
        // 300 ms after the last. A keyframe that left before the encode began is an older one.
        var gate = KeyframeGate()
        gate.keyframeSent(at: .seconds(1.01))
        gate.keyframeEncoded(at: .seconds(1.02), started: .seconds(1))
        gate.request(at: .seconds(1.3), by: .receiver, repairWindow: .milliseconds(250))
        #expect(gate.isPending && gate.requestsLeftToRepair == 0)
        #expect(gate.earliestKeyframe() == .seconds(1.32))
        var older = KeyframeGate()
        older.keyframeSent(at: .seconds(0.99))
        older.keyframeEncoded(at: .seconds(1.02), started: .seconds(1))
        older.request(at: .seconds(1.3), by: .receiver, repairWindow: .milliseconds(250))
        #expect(!older.isPending && older.requestsLeftToRepair == 1)
    }

    @Test func aKeyframeWhoseEndNeverLeft_stopsCountingAfterTwoSeconds() {
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .seconds(1))
        gate.request(at: .seconds(2.9), by: .receiver, repairWindow: .milliseconds(200))
        #expect(!gate.isPending)
        gate.request(at: .seconds(3.1), by: .receiver, repairWindow: .milliseconds(200))
        #expect(gate.isPending)
    }
}
