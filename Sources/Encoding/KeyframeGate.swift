import Media

/// Decides when a keyframe request becomes an IDR (docs/behaviour.md §7.4): at once when
/// the last IDR is at least 300 ms old, otherwise when it turns 300 ms old.
/// However many receivers ask, and however often (Chromium repeats a PLI
/// about every 200 ms while it waits), one IDR answers them all.
///
/// A receiver's request (PLI, FIR) that comes while the last keyframe is
/// still in flight — not yet all sent, or sent less than a repair window ago
/// (a round trip and the pacer's queue) — is left to that keyframe's repair
/// by retransmission: on a short link a new IDR would only join the queue
/// behind the one being repaired. If no keyframe follows within
/// `repairGrace` after that window, one is made then: a receiver that asks
/// only when it gives a packet up (rtpbin) does not ask again when the repair
/// fails, and waited frozen for the next periodic keyframe, 8 s later. A
/// request first made after the keyframe left, with nothing resent since that
/// keyframe was made, is answered when its window ends: no repair is under
/// way, and the receiver gave the keyframe up for coming too late (rtpbin
/// does at its latency), which no retransmission mends.
/// While the link is the limit, keyframes a receiver asks for are at least a
/// second apart. Recovery's own requests (the watchdog, the ladder, the call
/// client) keep the 300 ms rule only.
///
/// A keyframe every `lastResortFrames` frames is made only while some
/// receiver has never asked for one: it has nothing else to recover from a
/// loss with (and, while it has sent nothing at all, a few come sooner). For
/// a receiver that asks, such a keyframe is only a burst, and on a link that
/// is the limit a burst overruns the bottleneck's queue.
public struct KeyframeGate: Sendable {
    public static let minimumInterval: Duration = .milliseconds(300)
    /// While the link is the limit each keyframe is a burst the bottleneck
    /// must absorb: a second between them leaves it time to drain.
    public static let linkLimitedInterval: Duration = .seconds(1)
    /// A keyframe whose end never left (the queue dropped it, a new stream
    /// replaced it) stops counting as in flight after this.
    public static let maxInFlight: Duration = .seconds(2)
    /// How long after its repair window a request left to a repair is answered
    /// anyway: longer than a receiver that repeats its request (Chromium, every
    /// 200 ms or so) takes to ask again once it has given the repair up. Not
    /// longer: rtpbin, behind a link stepped down, asked while the keyframe
    /// was leaving, gave it up for arriving past its latency, and asked no
    /// more; with 2 s here it showed nothing for 2.8–4.1 s (docs/benchmarks.md).
    public static let repairGrace: Duration = .milliseconds(750)
    /// Frames between keyframes for a receiver that never asks for one: 10 s of a moving
    /// screen at 30 fps, five minutes of a still one's once-a-second repeat.
    public static let lastResortFrames = 300
    /// A receiver that has sent nothing at all may be a player started after the share's first
    /// keyframe went by (ffmpeg or GStreamer opening the SDP the share wrote, with no call client
    /// to ask for it): it cannot ask, and on the last resort alone it showed nothing for 10 s.
    /// While one is silent, the last resort comes this long after the keyframe before it, twice
    /// as long each time, `silentKeyframes` times: 1, 3, 7 and 15 s after the first. A silent
    /// stream that joins later starts the count again: its player too may open after the
    /// stream's first keyframe went by.
    public static let firstSilentSpacing: Duration = .seconds(1)
    public static let silentKeyframes = 4

    /// Who asks.
    public enum Asker: Sendable {
        /// A receiver's PLI or FIR.
        case receiver
        /// A stream that was not sent the last keyframe (it joined, or missed frames): spaced as
        /// a receiver's request, but never left to the repair of a keyframe it does not have.
        case streamWithoutKeyframe
        /// The watchdog, the recovery ladder, or the call client: always answered.
        case recovery
        /// `lastResortFrames` have gone by since the last keyframe and a receiver never asks:
        /// spaced as a receiver's request.
        case lastResort
    }

    private var lastKeyframe: Instant?
    private var silentKeyframesMade = 0
    /// The silent streams the count is for.
    private var silentStreams: Set<UInt32> = []
    /// Frames encoded since the last keyframe.
    private var framesSinceKeyframe = 0
    /// When the last keyframe's last packet left; nil while it is still queued.
    private var lastKeyframeSent: Instant?
    private var pending: (since: Instant, byRecovery: Bool)?
    /// When the window of the first request left to a repair ends, and whether that request
    /// came after the keyframe's last packet left; nil once a keyframe came.
    private var leftToRepair: (windowEnds: Instant, afterKeyframeLeft: Bool)?
    /// When a retransmission was last sent, to any receiver of the layer.
    private var lastResend: Instant?
    public private(set) var requestsAnswered = 0
    /// Requests answered by a keyframe made or sent already, this included.
    public private(set) var requestsCoalesced = 0
    /// Of those, the receiver's requests left to the repair of the keyframe in flight.
    public private(set) var requestsLeftToRepair = 0

    public init() {}

    /// A request at `now`. `repairWindow` is how long after the last
    /// keyframe left a receiver's request is still about it.
    public mutating func request(at now: Instant, by asker: Asker = .recovery, repairWindow: Duration = .zero) {
        if asker == .receiver, pending == nil, keyframeInFlight(at: now, repairWindow: repairWindow) {
            requestsCoalesced += 1
            requestsLeftToRepair += 1
            leftToRepair = leftToRepair ?? (now + repairWindow, lastKeyframeSent != nil)
            return
        }
        if let current = pending {
            requestsCoalesced += 1
            pending = (current.since, current.byRecovery || asker == .recovery)
        } else {
            pending = (now, asker == .recovery)
        }
    }

    /// Asks for the last-resort keyframe when it is due and `needed`: a receiver has never asked
    /// for one. `silent`: the streams (SSRCs) of receivers that have sent nothing at all.
    public mutating func lastResort(at now: Instant, needed: Bool, silent: Set<UInt32> = []) {
        if !silent.isSubset(of: silentStreams) { silentKeyframesMade = 0 }
        silentStreams = silent
        guard needed, pending == nil else { return }
        if !silent.isEmpty, silentKeyframesMade < Self.silentKeyframes, let lastKeyframe,
           now - lastKeyframe >= Self.firstSilentSpacing * (1 << silentKeyframesMade) {
            silentKeyframesMade += 1
            request(at: now, by: .lastResort)
        } else if framesSinceKeyframe >= Self.lastResortFrames {
            request(at: now, by: .lastResort)
        }
    }

    /// The encoder made a frame that is not a keyframe.
    public mutating func frameEncoded() {
        framesSinceKeyframe += 1
    }

    /// A request waits to be answered now (one left to a repair is not counted).
    public var isPending: Bool { pending != nil }

    /// Whether the frame encoded at `now` should be an IDR.
    public func shouldEncodeKeyframe(at now: Instant, linkLimited: Bool = false) -> Bool {
        guard let earliest = earliestKeyframe(linkLimited: linkLimited) else { return false }
        return now >= earliest
    }

    /// When a request may next be answered, for a still screen's encoder to wake.
    public func earliestKeyframe(linkLimited: Bool = false) -> Instant? {
        if let pending {
            guard let lastKeyframe else { return .zero }
            return lastKeyframe + Self.spacing(linkLimited: linkLimited && !pending.byRecovery)
        }
        guard let leftToRepair else { return nil }
        let repairing = lastResend.map { $0 >= lastKeyframe ?? .zero } ?? false
        let answered = leftToRepair.afterKeyframeLeft && !repairing
            ? leftToRepair.windowEnds : leftToRepair.windowEnds + Self.repairGrace
        return max(answered, (lastKeyframe ?? .zero) + Self.spacing(linkLimited: linkLimited))
    }

    /// A retransmission is sent, to a receiver of this layer.
    public mutating func resent(at now: Instant) {
        lastResend = now
    }

    private static func spacing(linkLimited: Bool) -> Duration {
        linkLimited ? linkLimitedInterval : minimumInterval
    }

    /// The encoder made an IDR (asked for or not), in an encode call that began at `started`:
    /// pending requests are answered. Its slices leave as the encoder makes them, so on a link
    /// with room its last packet may have left before the call returned: a keyframe sent since
    /// `started` is this one. (Taken for still in flight, a keyframe that had left kept every
    /// request of the next 2 s waiting on its repair. An older keyframe that was still leaving
    /// is taken for this one, which only shortens the wait.)
    public mutating func keyframeEncoded(at now: Instant, started: Instant? = nil) {
        if pending != nil || leftToRepair != nil { requestsAnswered += 1 }
        pending = nil
        leftToRepair = nil
        lastKeyframe = now
        framesSinceKeyframe = 0
        if let sent = lastKeyframeSent, let started, sent >= started { return }
        lastKeyframeSent = nil
    }

    /// The last keyframe's last packet left the pacer.
    public mutating func keyframeSent(at now: Instant) {
        lastKeyframeSent = now
    }

    private func keyframeInFlight(at now: Instant, repairWindow: Duration) -> Bool {
        guard let lastKeyframe, now - lastKeyframe < Self.maxInFlight else { return false }
        guard let sent = lastKeyframeSent else { return true }
        return now - sent < repairWindow
    }
}
