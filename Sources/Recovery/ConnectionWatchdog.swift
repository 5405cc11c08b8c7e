import Media

/// Puts right one receiver connection whose screen has stopped leaving while
/// frames still come in (docs/behaviour.md §4.3, the sender's own watchdog).
///
/// Ticked with the connection's running counters. A connection that takes
/// frames in and encodes or sends none for `stopLimit`, past its first
/// `startupGrace`, gets, `stepSpacing` apart: a keyframe, then a fresh encoder
/// with the screen a third smaller for `shrinkDuration`, then a new
/// transceiver. Frames encoded and sent again stand it down.
///
/// The link can explain only frames that are encoded and wait to be sent
/// (`linkIsLimit`: packets wait in the pacer's queue). It never explains an
/// encoder that produces nothing: a short link lowers the bitrate and the
/// size, it does not stop the encoder. Taking a target below the cap as the
/// link's excuse left this watchdog idle for as long as a receiver's estimate
/// limited the share, that is on every short link.
public struct ConnectionWatchdog: Sendable {
    /// docs/behaviour.md §4.3: a new connection is left alone for its first 10 s, while ICE,
    /// DTLS and the first keyframe are still settling.
    public static let startupGrace: Duration = .seconds(10)
    /// docs/behaviour.md §4.3: 5 s of frames in and nothing out. Longer than the capture's 3 s
    /// so a capture restart is tried before the encoder is blamed.
    public static let stopLimit: Duration = .seconds(5)
    /// docs/behaviour.md §4.3: 3 s between steps, so each has a second or two to show a
    /// result on a 1 s tick before the next, heavier one.
    public static let stepSpacing: Duration = .seconds(3)
    /// docs/behaviour.md §4.3: the fresh encoder makes the screen a third smaller, so an
    /// encoder stuck on its frame size or bitrate starts from an easier point.
    public static let freshEncoderShrink = 1.0 / 3.0
    /// docs/behaviour.md §4.3: the smaller screen lasts 30 s, then full size comes back.
    public static let shrinkDuration: Duration = .seconds(30)

    /// The connection's running totals, read by the I/O layer at each tick.
    /// Totals may start again from zero when the transceiver is replaced: any
    /// change to a total above zero counts as frames moving.
    public struct Counters: Equatable, Sendable {
        public var framesIn: Int
        public var framesEncoded: Int
        public var framesSent: Int
        /// Encoded frames wait on the link just now: packets are queued for the pacer.
        public var linkIsLimit: Bool

        public init(framesIn: Int = 0, framesEncoded: Int = 0, framesSent: Int = 0, linkIsLimit: Bool = false) {
            self.framesIn = framesIn
            self.framesEncoded = framesEncoded
            self.framesSent = framesSent
            self.linkIsLimit = linkIsLimit
        }
    }

    public enum State: Equatable, Sendable {
        /// Frames leave, or their absence is explained.
        case watching
        /// The screen has stopped leaving; `last` was taken at `at`.
        case escalating(last: RecoveryStep, at: Instant)
    }

    public enum Action: RecoveryAction, Equatable {
        case keyframe(reason: String)
        /// Replace the encoder, each side of the screen `shrinkBy` smaller, for `for`.
        case freshEncoder(shrinkBy: Double, for: Duration, reason: String)
        case restoreFullSize(reason: String)
        /// A new SSRC and encoder here, so a new decoder at the receiver.
        case newTransceiver(reason: String)
        /// Frames leave again, or the link now explains why they do not.
        case stoodDown(reason: String)

        public var step: RecoveryStep {
            switch self {
            case .keyframe: .keyframe
            case .freshEncoder: .freshEncoder
            case .restoreFullSize: .restoreFullSize
            case .newTransceiver: .newTransceiver
            case .stoodDown: .stoodDown
            }
        }

        public var reason: String {
            switch self {
            case .keyframe(let reason), .restoreFullSize(let reason),
                 .newTransceiver(let reason), .stoodDown(let reason):
                reason
            case .freshEncoder(_, _, let reason):
                reason
            }
        }
    }

    public private(set) var state: State = .watching
    /// Frames come in but none have been encoded for `stopLimit`, or none sent
    /// for `stopLimit` without packets waiting on the link — whether or not the
    /// startup grace is over.
    /// The stall ladder reads this to leave sender-side faults to this watchdog.
    public private(set) var screenStoppedLeaving = false

    private var graceEnds: Instant
    private var last: Counters
    private var lastInAt: Instant
    private var lastEncodedAt: Instant
    private var lastSentAt: Instant
    /// The last tick at which packets waited on the link: sending silence before it is explained.
    private var lastHeldBackAt: Instant?
    private var fullSizeDue: Instant?
    /// What stopped, as the step's reason says it: "encoded" or "sent".
    private var stoppedPart = "encoded"

    public init(connectedAt: Instant, counters: Counters = Counters()) {
        graceEnds = connectedAt + Self.startupGrace
        last = counters
        lastInAt = connectedAt
        lastEncodedAt = connectedAt
        lastSentAt = connectedAt
    }

    /// The transceiver was replaced (by this watchdog, or by a rebuild or a
    /// share-again): it is a new connection to the receiver and gets a new grace.
    public mutating func transceiverReplaced(now: Instant) {
        graceEnds = now + Self.startupGrace
        lastEncodedAt = now
        lastSentAt = now
        screenStoppedLeaving = false
        state = .watching
    }

    /// Called once a second with the connection's running totals.
    public mutating func tick(now: Instant, counters: Counters) -> [Action] {
        record(counters, now: now)
        var actions: [Action] = []
        if let due = fullSizeDue, now >= due {
            fullSizeDue = nil
            actions.append(.restoreFullSize(reason: "the smaller screen has had its \(Self.shrinkDuration.spoken)"))
        }
        let encodeQuiet = lastInAt > lastEncodedAt ? now - lastEncodedAt : .zero
        let sendQuiet = lastInAt > lastSentAt ? now - max(lastSentAt, lastHeldBackAt ?? lastSentAt) : .zero
        stoppedPart = encodeQuiet >= Self.stopLimit ? "encoded" : "sent"
        screenStoppedLeaving = max(encodeQuiet, sendQuiet) >= Self.stopLimit

        switch state {
        case .watching:
            if screenStoppedLeaving && now >= graceEnds {
                state = .escalating(last: .keyframe, at: now)
                let quiet = stoppedPart == "encoded" ? encodeQuiet : now - lastSentAt
                actions.append(.keyframe(reason: "frames came in but none were \(stoppedPart) for \(quiet.spoken)"))
            }
        case .escalating(let step, let at):
            if !screenStoppedLeaving {
                state = .watching
                actions.append(.stoodDown(reason: counters.linkIsLimit
                    ? "the link is now what holds frames back"
                    : "frames are encoded and sent again"))
            } else if now - at >= Self.stepSpacing {
                actions.append(contentsOf: escalate(after: step, now: now))
            }
        }
        return actions
    }


    private mutating func escalate(after step: RecoveryStep, now: Instant) -> [Action] {
        switch step {
        case .keyframe:
            state = .escalating(last: .freshEncoder, at: now)
            fullSizeDue = now + Self.shrinkDuration
            return [.freshEncoder(
                shrinkBy: Self.freshEncoderShrink, for: Self.shrinkDuration,
                reason: "a keyframe \(Self.stepSpacing.spoken) ago did not get frames \(stoppedPart)")]
        default:
            let reason = "a fresh encoder \(Self.stepSpacing.spoken) ago did not get frames \(stoppedPart)"
            transceiverReplaced(now: now)
            return [.newTransceiver(reason: reason)]
        }
    }

    private mutating func record(_ counters: Counters, now: Instant) {
        if moved(counters.framesIn, from: last.framesIn) { lastInAt = now }
        if moved(counters.framesEncoded, from: last.framesEncoded) { lastEncodedAt = now }
        if moved(counters.framesSent, from: last.framesSent) { lastSentAt = now }
        if counters.linkIsLimit { lastHeldBackAt = now }
        last = counters
    }

    /// A total that went down started again with a new transceiver; if it is
    /// above zero, frames moved since.
    private func moved(_ total: Int, from previous: Int) -> Bool {
        total != previous && total > 0
    }
}
