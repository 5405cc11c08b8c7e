import Capture
import Events
import Foundation
import Media
import Recovery
import Sending

/// Drives the recovery state machines for a share and carries out what they
/// decide: once a second, and on every capture and stall report. Decisions
/// are taken under the lock; the actions run outside it, because restarting
/// a capture waits for the capture thread, which may be reporting in here.
public final class ShareRecovery: @unchecked Sendable {
    // Safety: every field below `lock` is guarded by it.
    struct Receiver {
        let connection: SenderConnection
        var watchdog: ConnectionWatchdog
        var ladder: StallLadder
        var lastSent = 0
        var doing = "watching"
        var tally = RecoveryTally()
    }

    enum Work {
        case restartCapture(String)
        case giveUpCapture(String)
        case connection(SenderConnection, ConnectionWatchdog.Action)
        case ladder(SenderConnection, StallLadder.Action)
    }

    private let session: ShareSession
    private let clock: any MonotonicClock
    private let output: EventOutput
    private let lock = NSLock()
    private var captureWatchdog: CaptureWatchdog
    private var receivers: [String: Receiver] = [:]
    private var budget = ShareAgainBudget()
    private var history = LadderHistory()
    private var lastCaptureFailure: String?
    private var captureGivenUp = false
    private var captureDoing = ""
    private var captureRestarts = 0
    private let captureEnded: @Sendable (String) -> Void

    /// Restarts that bring nothing back before the capture is given up and the share ended.
    static let restartsBeforeGivingUp = 3

    /// `captureEnded` is told, once, why the capture cannot go on (the shared window closed, the
    /// desktop stopped the share, restarts do not bring it back): the share must end with that reason.
    public init(session: ShareSession, clock: any MonotonicClock, output: EventOutput,
                captureEnded: @escaping @Sendable (String) -> Void = { _ in }) {
        self.session = session
        self.clock = clock
        self.output = output
        self.captureEnded = captureEnded
        captureWatchdog = CaptureWatchdog(startedAt: clock.now)
        session.observeCapture(
            activity: { [weak self] frame in self?.captureActivity(frame: frame) },
            failure: { [weak self] error in self?.captureFailed(error) })
    }

    public func attach(_ connection: SenderConnection) {
        let now = clock.now
        lock.withLock {
            receivers[connection.config.id] = Receiver(
                connection: connection, watchdog: ConnectionWatchdog(connectedAt: now),
                ladder: StallLadder(receiver: connection.config.displayName))
        }
    }

    /// Another source took the capture's place: its silence is timed from now, and the old one's failures are forgotten.
    public func sourceReplaced() {
        let now = clock.now
        lock.withLock {
            captureWatchdog = CaptureWatchdog(startedAt: now)
            lastCaptureFailure = nil
            captureDoing = ""
        }
    }

    public func detach(_ id: String) {
        _ = lock.withLock { receivers.removeValue(forKey: id) }
    }

    private func captureActivity(frame: Bool) {
        let now = clock.now
        lock.withLock {
            _ = frame ? captureWatchdog.captureDelivered(now: now) : captureWatchdog.captureReportedIdle(now: now)
            captureDoing = ""
        }
    }

    private func captureFailed(_ error: CaptureError) {
        output.log(.warning, "screen", "capture: \(error)")
        note(error)
    }

    private func note(_ error: CaptureError) {
        lock.withLock { lastCaptureFailure = error.message }
        if error.kind == .permanent { endCapture(error.message) }
    }

    private func endCapture(_ reason: String) {
        let first = lock.withLock { () -> Bool in
            defer { captureGivenUp = true }
            return !captureGivenUp
        }
        if first { captureEnded(reason) }
    }

    /// A receiver's media report: `screenStalled` true or false.
    public func stallReport(receiverID: String, stalled: Bool) -> Bool {
        let now = clock.now
        let work = lock.withLock { () -> [Work]? in
            guard var r = receivers[receiverID] else { return nil }
            let actions = stalled ? r.ladder.stallReported(now: now) : r.ladder.stallCleared(now: now)
            history.record(actions, for: r.connection.config.displayName, at: now)
            r.tally.record(actions)
            r.tally.stall(reported: stalled, at: now)
            receivers[receiverID] = r
            return actions.map { .ladder(r.connection, $0) }
        }
        guard let work else { return false }
        output.log(.info, "screen", "\(receiverID) reports screenStalled \(stalled)")
        perform(work)
        return true
    }

    /// Once a second: every watchdog and ladder looks at the figures.
    public func tick() {
        let now = clock.now
        let work = lock.withLock { () -> [Work] in
            var work: [Work] = []
            let captureActions = captureGivenUp ? [] : captureWatchdog.tick(now: now)
            history.record(captureActions, for: "capture", at: now)
            for case .restartCapture(let reason) in captureActions {
                if captureWatchdog.consecutiveRestarts > Self.restartsBeforeGivingUp {
                    work.append(.giveUpCapture(lastCaptureFailure ?? reason))
                } else {
                    work.append(.restartCapture(reason))
                    captureDoing = "capture restarted"
                    captureRestarts += 1
                }
            }
            for id in receivers.keys.sorted() {
                var r = receivers[id]!
                let counters = r.connection.counters
                let linkIsLimit = r.connection.isHeldBackByLink
                if counters.sent != r.lastSent {
                    r.ladder.framesLeft(now: now)
                    r.lastSent = counters.sent
                }
                let watch = r.watchdog.tick(now: now, counters: ConnectionWatchdog.Counters(
                    framesIn: counters.framesIn, framesEncoded: counters.encoded, framesSent: counters.sent, linkIsLimit: linkIsLimit))
                history.record(watch, for: r.connection.config.displayName, at: now)
                r.tally.record(watch)
                r.tally.screenStopped += watch.filter { $0.step == .keyframe }.count
                work += watch.map { .connection(r.connection, $0) }
                let climb = r.ladder.tick(now: now, screenStoppedLeaving: r.watchdog.screenStoppedLeaving, budget: &budget)
                history.record(climb, for: r.connection.config.displayName, at: now)
                r.tally.record(climb)
                work += climb.map { .ladder(r.connection, $0) }
                r.doing = ShareRecovery.describe(r)
                receivers[id] = r
            }
            return work
        }
        perform(work)
    }

    static func describe(_ r: Receiver) -> String {
        switch r.ladder.state {
        case .idle: break
        case .sendingKeyframes: return "keyframes for \(r.connection.config.displayName)'s stalled view"
        case .rebuilt: return "rebuilt \(r.connection.config.displayName)'s screen"
        case .sharedAgain: return "shared again for everyone"
        case .gaveUp: return "could not restore \(r.connection.config.displayName)'s view"
        }
        switch r.watchdog.state {
        case .watching: return "watching"
        case .escalating(let last, _): return "frames not leaving: \(last.rawValue)"
        }
    }

    /// What the watchdog is doing, for the second status line.
    public func doing(for id: String) -> String {
        lock.withLock {
            if !captureDoing.isEmpty { return captureDoing }
            return receivers[id]?.doing ?? "watching"
        }
    }

    private func perform(_ work: [Work]) {
        for item in work {
            switch item {
            case .restartCapture(let reason):
                output.log(.warning, "screen", "restarting the capture: \(reason)")
                do throws(CaptureError) {
                    try session.restartCapture()
                } catch {
                    output.log(.error, "screen", "the capture could not be restarted: \(error)")
                    note(error)
                }
            case .giveUpCapture(let failure):
                let restarts = Self.restartsBeforeGivingUp
                endCapture("The screen capture stopped and \(restarts) restarts did not bring it back: \(failure)")
            case .connection(let c, let action):
                perform(action, on: c)
            case .ladder(let c, let action):
                perform(action, on: c)
            }
        }
    }

    private func perform(_ action: ConnectionWatchdog.Action, on c: SenderConnection) {
        output.log(.info, "screen", "\(c.config.displayName): \(action.step.rawValue) — \(action.reason)")
        switch action {
        case .keyframe(let reason):
            c.requestKeyframe(reason: reason)
        case .freshEncoder(let shrinkBy, let duration, let reason):
            c.freshEncoder(shrink: (1 - shrinkBy, clock.now + duration), reason: reason)
        case .restoreFullSize:
            c.restoreFullSize()
        case .newTransceiver(let reason):
            announce(c, ssrc: c.newTransceiver(reason: reason), reason: "newTransceiver")
            lock.withLock { receivers[c.config.id]?.watchdog.transceiverReplaced(now: clock.now) }
        case .stoodDown:
            break
        }
    }

    private func perform(_ action: StallLadder.Action, on c: SenderConnection) {
        output.log(.info, "screen", "\(c.config.displayName): \(action.step.rawValue) — \(action.reason)")
        switch action {
        case .sendKeyframe(let reason):
            c.requestKeyframe(reason: reason)
        case .notice(let notice, _):
            output.event("notice", [("receiver", .string(c.config.id)), ("kind", .string(ShareRecovery.kind(notice))),
                                    ("text", .string(notice.text))], human: notice.text)
        case .clearNotice:
            output.event("notice", [("receiver", .string(c.config.id)), ("cleared", .bool(true))],
                         human: "\(c.config.displayName)'s view is back")
        case .rebuildReceiver(let reason):
            announce(c, ssrc: c.newTransceiver(reason: reason), reason: "rebuild")
            lock.withLock { receivers[c.config.id]?.watchdog.transceiverReplaced(now: clock.now) }
        case .shareAgain:
            output.event("shareAgain", [], human: "Sharing again for everyone")
            for other in session.receivers {
                announce(other, ssrc: other.newTransceiver(reason: "share again"), reason: "shareAgain")
                lock.withLock { receivers[other.config.id]?.watchdog.transceiverReplaced(now: clock.now) }
            }
        case .stepPassed:
            break
        }
    }

    static func kind(_ notice: StallNotice) -> String {
        switch notice {
        case .recovering: "recovering"
        case .restarting: "restarting"
        case .couldNotRestore: "couldNotRestore"
        }
    }

    /// A new SSRC the call client must tell the peer about.
    private func announce(_ c: SenderConnection, ssrc: UInt32, reason: String) {
        output.event("transceiver", [("receiver", .string(c.config.id)), ("ssrc", .int(Int(ssrc))), ("reason", .string(reason))],
                     human: "New transceiver for \(c.config.displayName): SSRC \(ssrc) (\(reason))")
    }

    /// What recovery did for a receiver since it joined, for its quality report.
    public func tally(for id: String) -> RecoveryTally? {
        lock.withLock { receivers[id]?.tally }
    }

    /// Capture restarts since the share began.
    public var restartsOfTheCapture: Int { lock.withLock { captureRestarts } }

    /// The ladder's history, for diagnostics.
    public var historyLines: [String] { lock.withLock { history.lines } }
}
