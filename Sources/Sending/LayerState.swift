import Congestion
import Encoding
import Media
import ControlProtocol

/// One layer's encoding figures and decisions, guarded by the layer's lock.
struct LayerState {
    /// docs/behaviour.md §2.5: the last frame is encoded again once a second while the screen is still.
    static let stillRepeatInterval: Duration = .seconds(1)
    /// The encoder aims below the target, which counts every header the link
    /// carries (RTP, extensions, SRTP, UDP, IP): the rest is room for
    /// retransmissions and x264's overshoot.
    static let encoderShare = 0.85
    /// Encoding that takes more than 80 % of the time leaves no room to catch up: the CPU is the limit.
    static let cpuBusyFraction = 0.8

    var share: ShareParameters
    let started: Instant
    var running = true
    var pending: Surface?
    var gate = KeyframeGate()
    /// Since when the keyframe due has waited for a shorter queue (`keyframeWaits`).
    var keyframeWaitingSince: Instant?
    /// Which encode thread is current; older ones exit (or, stuck, are abandoned).
    var encodeGeneration = 0
    /// When the current encode call began; nil between calls.
    var encodeBusySince: Instant?
    var abandonedEncoders = 0
    var encoderSettings: EncoderSettings?
    /// Recovery's "a third smaller for 30 s": the scale, and until when.
    var shrink: (factor: Double, until: Instant)?
    var balanced = BalancedSizer()
    var rateAdjuster = EncoderRateAdjuster()
    var encodedSize = (0, 0)

    var framesIn = 0
    var framesSuperseded = 0
    var framesDroppedLate = 0
    /// Frames a policy let fall to hold its size on a short link.
    var framesSkippedForRate = 0
    /// Frames not encoded because every member's pacer queue was already long.
    var framesHeldForLink = 0
    /// Frames a member missed because its queue was long while others' were not (one count each).
    var framesMissedBehind = 0
    var framesEncoded = 0
    var stillRepeats = 0
    /// Still-frame repeats (and keyframes from the last frame) handed to the encoder, made or not.
    var repeatsTaken = 0
    var keyframesMade = 0
    var encoderErrors = 0

    var encodedMeter = RateMeter()
    /// Microseconds spent encoding, a second: how busy the encoder is.
    var encodeTime = RateMeter()

    init(share: ShareParameters, started: Instant) {
        self.share = share
        self.started = started
    }

    /// docs/behaviour.md §7.5 and §12, from each member's wait (its pacer's queue and, where
    /// transport-wide feedback tells, the path's) and whether it awaits a keyframe: a frame is
    /// held back, not queued behind seconds of others, while a member's wait is past the limit.
    /// A member twice that far behind, while another keeps up (its wait under the limit), holds
    /// no one up: it is skipped (misses frames) until its wait is back under the limit, and then
    /// takes the stream again from a keyframe. A member alone is never skipped.
    static func backlog(delays: [Duration], awaitingKeyframe: [Bool]) -> (held: Bool, skip: [Bool]) {
        let limit = ConnectionState.maxQueueDelay
        // A skipped member is past the limit, so whoever keeps up is another.
        let someoneKeepsUp = delays.contains { $0 <= limit }
        let skip = zip(delays, awaitingKeyframe).map { delay, awaiting in
            someoneKeepsUp && (delay > limit * 2 || (delay > limit && awaiting))
        }
        let held = zip(delays, skip).contains { delay, skipped in !skipped && delay > limit }
        return (held, skip)
    }

    /// Whether the keyframe due now waits for a shorter queue: while the wait of a member it goes to
    /// is past `maxKeyframeQueueDelay`, for at most `keyframeHoldLimit` from when it first waited
    /// (docs/behaviour.md §7.5).
    mutating func keyframeWaits(delays: [Duration], now: Instant) -> Bool {
        guard delays.contains(where: { $0 > ConnectionState.maxKeyframeQueueDelay }) else {
            keyframeWaitingSince = nil
            return false
        }
        let since = keyframeWaitingSince ?? now
        keyframeWaitingSince = since
        return now - since < ConnectionState.keyframeHoldLimit
    }

    /// The encoder settings for a frame of this size now, at `target` (the
    /// least its receivers' estimates allow), and the frame rate to encode
    /// at. A policy that lets frames fall skips frames rather than change the
    /// encoder's rate: a new rate would need a new encoder, and a keyframe.
    /// `seesQueueing`: the target is kept by queueing delay, so the encoder may be asked for more
    /// than it is meant to send where it sends less (docs/behaviour.md §3.3), into the room that
    /// `resending` (bits per second of retransmissions) leaves; without it, a target that is no
    /// receiver's own estimate (REMB) is from loss alone, and Balanced grows into less of it (§3.2).
    mutating func plan(sourceWidth: Int, sourceHeight: Int, target: SendSideBandwidthEstimator.Target, codec: ReceiverConfig.Codec,
                       seesQueueing: Bool, resending: Double = 0, now: Instant,
                       levelLimit: H264Level?) -> (settings: EncoderSettings, fps: Int) {
        let encoderBitrate = Int(Double(target.bitrate) * LayerState.encoderShare)
        let recoveryScale = shrink.map { now < $0.until ? $0.factor : 1 } ?? 1
        var limit = levelLimit
        if share.startedInMotion { limit = min(limit ?? .level3_1, .level3_1) }
        var balancedScale: Double?
        if share.policy == .balanced {
            let bits = EncodingPlan.balancedBitsPerPixel(policy: share.policy, sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                                         fps: share.fps, bitrate: encoderBitrate)
            balancedScale = balanced.update(bitsPerPixel: bits, settled: target.limit != .probing, tried: target.tried,
                                            fromLossAlone: !seesQueueing && target.limit != .receiverEstimate, at: now)
        }
        let plan = EncodingPlan.make(
            policy: share.policy, sourceWidth: sourceWidth, sourceHeight: sourceHeight, fps: share.fps,
            bitrate: encoderBitrate, levelLimit: limit, balancedScale: balancedScale, shrink: recoveryScale)
        var profile = ProfileLevelID.Profile.constrainedBaseline
        if case .h264(let id) = codec { profile = id.profile }
        // Sizes and rates are chosen on what the encoder is meant to send; only the bitrate it is
        // given makes up for its shortfall.
        // The raise gives way to retransmissions: on top of the most it may ask, after a link
        // stepped down from 3 to 0.6 Mbit/s, encoder and retransmissions together sent
        // 0.69–0.71 Mbit/s for a target of 0.59, the bottleneck's queue never drained, and each
        // keyframe lost packets to it.
        var adjusted = encoderBitrate
        if seesQueueing {
            let most = Double(encoderBitrate) * rateAdjuster.bounds.largestFactor
            adjusted = max(encoderBitrate, min(Int(Double(encoderBitrate) * rateAdjuster.factor), Int(most - resending)))
        }
        var settings = EncoderSettings.carrying(plan, shareFPS: share.fps, bitrate: adjusted, target: target.bitrate,
                                                profile: profile, favourDetail: share.policy == .detail,
                                                screenContent: share.policy != .motion)
        // docs/behaviour.md §7.7: the first picture is no bigger than the start rate's buffer allows,
        // or one frame period of the encoder's rate (x264's least), whatever the target.
        // Without transport-wide feedback the target starts at the cap, and a keyframe of the cap's
        // size overflowed a 1.5 Mbit/s tbf's queue with the frames behind it, so under 2 % random
        // loss rtpbin saw no picture for 2.3–4.3 s. The rate stays the target's: set to the start
        // rate for that frame, x264 took over a second to climb back to the cap's. Only the buffer's
        // start is bounded, not its size: with the whole buffer shrunk for that frame, the next two
        // seconds were blurrier still.
        if keyframesMade == 0 {
            let start = Double(min(target.bitrate, SendSideBandwidthEstimator.startBitrate))
            let startBuffer = Int(start * EncoderSettings.bufferDuration(favourDetail: settings.favourDetail))
            settings.initialBufferBits = min(settings.bufferBits, max(startBuffer, settings.bitrate / max(1, settings.fps)))
        }
        return (settings, plan.fps)
    }
}
