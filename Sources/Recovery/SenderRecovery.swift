import Media

/// The sender's recovery machines put together (docs/behaviour.md §4, §5): the capture watchdog,
/// each receiver's connection watchdog and stall ladder, the share's one share-again budget, and
/// the history they write. Counters and reports in, actions out: whoever owns the capture and
/// the connections carries the actions out, in the order given, and says what it could not do.
///
/// Each tick, in this order: the capture watchdog (restarts it, or gives it up after
/// `restartsBeforeGivingUp` restarts that brought nothing back); then every receiver in the
/// order of its id: `framesLeft` to its ladder if its sent count moved, its restart detector
/// with what its reports say, its connection watchdog with its counters, then its ladder with
/// that watchdog's `screenStoppedLeaving` and the budget. A rebuild or a share-again gives the replaced connections' watchdogs a new grace at
/// once, as the new transceivers start when the action is carried out.
public struct SenderRecovery: Sendable {
    /// Restarts that bring nothing back before the capture is given up and the share ended:
    /// by then a source that could reopen has had 12 s, four times its silence limit.
    public static let restartsBeforeGivingUp = 3

    public enum Action: Equatable, Sendable {
        case restartCapture(reason: String)
        /// The capture cannot go on: the share ends, with this reason in plain words.
        case endCapture(reason: String)
        case connection(receiver: String, ConnectionWatchdog.Action)
        case ladder(receiver: String, StallLadder.Action)
        case restart(receiver: String, ReceiverRestartDetector.Action)
    }

    /// What a receiver's media report says about its view of the screen.
    public enum Report: Equatable, Sendable {
        case stalled
        /// It decodes again.
        case cleared
        /// It has held its report as long as it may (docs/behaviour.md §6.1) and withdraws it:
        /// the view is not back.
        case withdrawn
    }

    struct Receiver: Sendable {
        let name: String
        var watchdog: ConnectionWatchdog
        var ladder: StallLadder
        var restart = ReceiverRestartDetector()
        var lastSent: Int?
    }

    private var capture: CaptureWatchdog
    private var captureFailure: String?
    private var captureEnded = false
    private var captureRestarted = false
    private var receivers: [String: Receiver] = [:]
    private var budget = ShareAgainBudget()
    public private(set) var history = LadderHistory()

    public init(startedAt: Instant) {
        capture = CaptureWatchdog(startedAt: startedAt)
    }

    /// A receiver joins: `name` is how notices and the history say it.
    public mutating func attach(_ id: String, name: String, now: Instant) {
        receivers[id] = Receiver(name: name, watchdog: ConnectionWatchdog(connectedAt: now),
                                 ladder: StallLadder(receiver: name))
    }

    public mutating func detach(_ id: String) {
        receivers.removeValue(forKey: id)
    }

    public var receiverIDs: [String] { receivers.keys.sorted() }

    /// Another source took the capture's place (the person picked another window): its silence
    /// is timed from now, and the old one's failures are forgotten.
    public mutating func captureReplaced(now: Instant) {
        capture = CaptureWatchdog(startedAt: now)
        captureFailure = nil
        captureRestarted = false
    }

    /// The capture produced a frame (`frame`), or a damage-driven source said it is alive with
    /// nothing changed.
    public mutating func captureActive(frame: Bool, now: Instant) {
        _ = frame ? capture.captureDelivered(now: now) : capture.captureReportedIdle(now: now)
        captureRestarted = false
    }

    /// The capture failed, or a restart of it did. A permanent failure ends the capture at once
    /// (the shared window closed, the desktop ended the session); the last failure is the reason
    /// given if restarts do not bring it back.
    public mutating func captureFailed(_ message: String, permanent: Bool) -> [Action] {
        captureFailure = message
        return permanent ? end(message) : []
    }

    /// A receiver's media report, acted on at once; nil for a receiver not attached.
    public mutating func report(_ report: Report, from id: String, now: Instant) -> [Action]? {
        guard var r = receivers[id] else { return nil }
        let actions: [StallLadder.Action]
        switch report {
        case .stalled: actions = r.ladder.stallReported(now: now)
        case .cleared: actions = r.ladder.stallCleared(now: now)
        case .withdrawn: actions = r.ladder.stallWithdrawn(now: now)
        }
        history.record(actions, for: r.name, at: now)
        receivers[id] = r
        return actions.map { .ladder(receiver: id, $0) }
    }

    /// Every machine looks at the figures: `counters` holds each attached receiver's running
    /// totals, `reports` what its RTCP says about the stream it is sent.
    public mutating func tick(now: Instant, counters: [String: ConnectionWatchdog.Counters],
                              reports: [String: ReceiverRestartDetector.Reports] = [:]) -> [Action] {
        var actions = tickCapture(now: now)
        for id in receivers.keys.sorted() {
            guard var r = receivers[id], let c = counters[id] else { continue }
            if c.framesSent != r.lastSent {
                r.ladder.framesLeft(now: now)
                r.lastSent = c.framesSent
            }
            let restart = reports[id].map { r.restart.tick(now: now, reports: $0) } ?? []
            history.record(restart, for: r.name, at: now)
            actions += restart.map { .restart(receiver: id, $0) }
            if !restart.isEmpty { r.watchdog.transceiverReplaced(now: now) }
            let watch = r.watchdog.tick(now: now, counters: c)
            history.record(watch, for: r.name, at: now)
            actions += watch.map { .connection(receiver: id, $0) }
            let climb = r.ladder.tick(now: now, screenStoppedLeaving: r.watchdog.screenStoppedLeaving, budget: &budget)
            history.record(climb, for: r.name, at: now)
            receivers[id] = r
            for step in climb {
                actions.append(.ladder(receiver: id, step))
                replaceTransceivers(for: step, of: id, now: now)
            }
        }
        return actions
    }

    private mutating func tickCapture(now: Instant) -> [Action] {
        guard !captureEnded else { return [] }
        let restarts = capture.tick(now: now)
        history.record(restarts, for: "capture", at: now)
        return restarts.flatMap { restart -> [Action] in
            guard case .restartCapture(let reason) = restart else { return [] }
            if capture.consecutiveRestarts > Self.restartsBeforeGivingUp {
                return end("The screen capture stopped and \(Self.restartsBeforeGivingUp) restarts did not bring it back: "
                           + (captureFailure ?? reason))
            }
            captureRestarted = true
            return [.restartCapture(reason: reason)]
        }
    }

    private mutating func end(_ reason: String) -> [Action] {
        guard !captureEnded else { return [] }
        captureEnded = true
        return [.endCapture(reason: reason)]
    }

    private mutating func replaceTransceivers(for step: StallLadder.Action, of id: String, now: Instant) {
        switch step {
        case .rebuildReceiver:
            receivers[id]?.watchdog.transceiverReplaced(now: now)
        case .shareAgain:
            for other in receivers.keys { receivers[other]?.watchdog.transceiverReplaced(now: now) }
        default:
            break
        }
    }

    /// What the watchdog is doing for this receiver, for the second status line.
    public func doing(for id: String) -> String {
        if captureRestarted { return "capture restarted" }
        guard let r = receivers[id] else { return "watching" }
        switch r.ladder.state {
        case .idle: break
        case .sendingKeyframes: return "keyframes for \(r.name)'s stalled view"
        case .rebuilt: return "rebuilt \(r.name)'s screen"
        case .sharedAgain: return "shared again for everyone"
        case .gaveUp: return "could not restore \(r.name)'s view"
        }
        switch r.watchdog.state {
        case .watching: return "watching"
        case .escalating(let last, _): return "frames not leaving: \(last.rawValue)"
        }
    }
}
