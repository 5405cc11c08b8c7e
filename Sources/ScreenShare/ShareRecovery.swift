import Capture
import ControlProtocol
import Events
import Foundation
import Media
import Recovery
import Sending

/// Carries out what the sender's recovery decides (`SenderRecovery`, the machines put
/// together): it feeds the machine the capture's activity, the receivers' reports and each
/// connection's counters, and does what comes back. Decisions are taken under the lock; the
/// actions run outside it, because restarting a capture waits for the capture thread, which
/// may be reporting in here.
public final class ShareRecovery: @unchecked Sendable {
    // Safety: `machine`, `connections`, `tallies` and `captureRestarts` are guarded by `lock`.
    private let session: ShareSession
    private let clock: any MonotonicClock
    private let output: EventOutput
    private let lock = NSLock()
    private var machine: SenderRecovery
    private var connections: [String: SenderConnection] = [:]
    private var tallies: [String: RecoveryTally] = [:]
    private var captureRestarts = 0
    private let captureEnded: @Sendable (String) -> Void

    /// `captureEnded` is told, once, why the capture cannot go on (the shared window closed, the
    /// desktop stopped the share, restarts do not bring it back): the share must end with that reason.
    public init(session: ShareSession, clock: any MonotonicClock, output: EventOutput,
                captureEnded: @escaping @Sendable (String) -> Void = { _ in }) {
        self.session = session
        self.clock = clock
        self.output = output
        self.captureEnded = captureEnded
        machine = SenderRecovery(startedAt: clock.now)
        session.observeCapture(
            activity: { [weak self] frame in self?.captureActivity(frame: frame) },
            failure: { [weak self] error in self?.captureFailed(error) })
    }

    public func attach(_ connection: SenderConnection) {
        let now = clock.now
        lock.withLock {
            connections[connection.config.id] = connection
            machine.attach(connection.config.id, name: connection.config.displayName, now: now)
            tallies[connection.config.id] = RecoveryTally()
        }
    }

    /// Another source took the capture's place: its silence is timed from now, and the old one's failures are forgotten.
    public func sourceReplaced() {
        let now = clock.now
        lock.withLock { machine.captureReplaced(now: now) }
    }

    public func detach(_ id: String) {
        lock.withLock {
            connections.removeValue(forKey: id)
            tallies.removeValue(forKey: id)
            machine.detach(id)
        }
    }

    private func captureActivity(frame: Bool) {
        let now = clock.now
        lock.withLock { machine.captureActive(frame: frame, now: now) }
    }

    private func captureFailed(_ error: CaptureError) {
        output.log(.warning, "screen", "capture: \(error)")
        note(error)
    }

    private func note(_ error: CaptureError) {
        perform(lock.withLock { machine.captureFailed(error.message, permanent: error.kind == .permanent) })
    }

    /// A receiver's media report: its view stalled, decodes again, or the report is withdrawn.
    public func stallReport(receiverID: String, _ report: SenderRecovery.Report) -> Bool {
        let now = clock.now
        guard let work = lock.withLock({ () -> [SenderRecovery.Action]? in
            let work = machine.report(report, from: receiverID, now: now)
            if let work { tally(work) }
            if work != nil, report != .withdrawn { tallies[receiverID]?.stall(reported: report == .stalled, at: now) }
            return work
        }) else { return false }
        output.log(.info, "screen", "\(receiverID) reports " + ShareRecovery.words(report))
        perform(work)
        return true
    }

    static func words(_ report: SenderRecovery.Report) -> String {
        switch report {
        case .stalled: "screenStalled true"
        case .cleared: "screenStalled false"
        case .withdrawn: "screenStalled withdrawn (held too long; not a clearing)"
        }
    }

    /// Four times a second: every watchdog and ladder looks at the figures.
    public func tick() {
        let now = clock.now
        let work = lock.withLock { () -> [SenderRecovery.Action] in
            var counters: [String: ConnectionWatchdog.Counters] = [:]
            var reports: [String: ReceiverRestartDetector.Reports] = [:]
            for (id, c) in connections {
                let figures = c.counters
                counters[id] = ConnectionWatchdog.Counters(
                    framesIn: figures.framesIn, framesEncoded: figures.encoded, framesSent: figures.sent,
                    linkIsLimit: c.isHeldBackByLink)
                let heard = c.reportsHeard
                reports[id] = ReceiverRestartDetector.Reports(reporter: heard.reporter, reporterHearsUs: heard.hearsUs,
                                                              packetsSent: heard.packetsSent)
            }
            let work = machine.tick(now: now, counters: counters, reports: reports)
            tally(work)
            return work
        }
        perform(work)
    }

    /// What the watchdog is doing, for the second status line.
    public func doing(for id: String) -> String {
        lock.withLock { machine.doing(for: id) }
    }

    private func perform(_ work: [SenderRecovery.Action]) {
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
            case .endCapture(let reason):
                captureEnded(reason)
            case .connection(let id, let action):
                if let c = lock.withLock({ connections[id] }) { perform(action, on: c) }
            case .ladder(let id, let action):
                if let c = lock.withLock({ connections[id] }) { perform(action, on: c) }
            case .restart(let id, .newStream(let reason)):
                guard let c = lock.withLock({ connections[id] }) else { continue }
                output.log(.info, "screen", "\(c.config.displayName): newStream — \(reason)")
                announce(c, ssrc: c.newTransceiver(reason: reason), reason: "receiverRestarted")
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
        case .shareAgain:
            output.event("shareAgain", [], human: "Sharing again for everyone")
            for other in session.receivers {
                announce(other, ssrc: other.newTransceiver(reason: "share again"), reason: "shareAgain")
            }
        case .stepPassed, .reportWithdrawn:
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

    /// A new SSRC (and RTX SSRC) the call client must tell the peer about.
    private func announce(_ c: SenderConnection, ssrc: UInt32, reason: String) {
        var fields: [(String, JSONValue)] = [("receiver", .string(c.config.id)), ("ssrc", .int(Int(ssrc))), ("reason", .string(reason))]
        if let rtx = c.retransmissionSSRC { fields.append(("rtxSsrc", .int(Int(rtx)))) }
        output.event("transceiver", fields, human: "New transceiver for \(c.config.displayName): SSRC \(ssrc) (\(reason))")
    }

    /// Call with `lock` held: what the machines decided, counted for the quality reports.
    private func tally(_ work: [SenderRecovery.Action]) {
        for item in work {
            switch item {
            case .restartCapture:
                captureRestarts += 1
            case .connection(let id, let action):
                tallies[id]?.record([action])
                if action.step == .keyframe { tallies[id]?.screenStopped += 1 }
            case .ladder(let id, let action):
                tallies[id]?.record([action])
            case .endCapture, .restart:
                break
            }
        }
    }

    /// What recovery did for a receiver since it joined, for its quality report.
    public func tally(for id: String) -> RecoveryTally? {
        lock.withLock { tallies[id] }
    }

    /// Capture restarts since the share began.
    public var restartsOfTheCapture: Int { lock.withLock { captureRestarts } }

    /// The ladder's history, for diagnostics.
    public var historyLines: [String] { lock.withLock { machine.history.lines } }
}

extension SenderRecovery.Report {
    /// A media report as the control protocol and `screen-receiver` carry it: `expired`
    /// withdraws the report whatever `screenStalled` says.
    init(_ report: MediaReport) {
        self = report.expired ? .withdrawn : report.screenStalled ? .stalled : .cleared
    }
}
