import Capture
import Events
import Foundation
import Media
import ControlProtocol
import Recovery
import Sending

/// Carries out control commands on a share: one per control channel. Lines
/// come in from the channel's reader thread; `lookAfterRecovery` (four times
/// a second) and `sendStatus` (once a second) come from the serve loop;
/// replies and events go out through `output`.
public final class ControlServer: @unchecked Sendable {
    // Safety: every field below `lock` is guarded by it.
    struct Share {
        let session: ShareSession
        let recovery: ShareRecovery
        let diagnostics: ShareDiagnostics
        var receivers: [String: SenderConnection] = [:]
        /// Receivers in the order they were added, for status and diagnostics.
        var order: [String] = []
        /// Receivers added with `"insecure": true`: plain RTP may follow them off loopback.
        var insecure: Set<String> = []
    }

    public let output: EventOutput
    private let clock: any MonotonicClock
    private let allowUnencrypted: Bool
    private let lock = NSLock()
    private var greeted = false
    private var share: Share?
    private var liveness = ReceiverLiveness()

    public init(output: EventOutput, clock: any MonotonicClock = SystemClock(), allowUnencrypted: Bool = false) {
        self.output = output
        self.clock = clock
        self.allowUnencrypted = allowUnencrypted
    }

    /// The daemon's greeting, sent when a client connects.
    public func greet() {
        output.event("hello", [("protocol", .int(ControlDecoder.protocolVersion)), ("program", .string("screenshare")),
                               ("commands", .array(ControlCommand.names.map { .string($0) }))])
    }

    /// One line from the client. Bad input gets an `error` event and changes nothing.
    public func handle(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace) else { return }
        switch ControlDecoder.decode(line) {
        case .failure(let error):
            refuse(error)
        case .success(let request):
            do throws(ControlError) {
                let fields = try performLocked(request.command)
                reply(request, fields)
            } catch var error {
                error.id = request.id
                error.command = request.command.name
                refuse(error)
            }
        }
    }

    private func refuse(_ error: ControlError) {
        output.event("error", error.json, human: "screenshare: \(error)")
    }

    private func reply(_ request: ControlRequest, _ fields: [(String, JSONValue)]) {
        var all: [(String, JSONValue)] = []
        if let id = request.id { all.append(("id", id)) }
        all.append(("cmd", .string(request.command.name)))
        all.append(("ok", .bool(true)))
        output.event("reply", all + fields)
    }

    private func performLocked(_ command: ControlCommand) throws(ControlError) -> [(String, JSONValue)] {
        lock.lock()
        defer { lock.unlock() }
        return try perform(command)
    }

    // MARK: Commands (called with `lock` held)

    private func perform(_ command: ControlCommand) throws(ControlError) -> [(String, JSONValue)] {
        if case .hello(let version, let level) = command {
            guard version == ControlDecoder.protocolVersion else {
                throw ControlError(.unsupportedVersion, "protocol \(version) is not spoken here; this program speaks protocol \(ControlDecoder.protocolVersion)",
                                   field: "protocol")
            }
            greeted = true
            if let level { output.setLevel(level) }
            return [("protocol", .int(ControlDecoder.protocolVersion))]
        }
        guard greeted else {
            throw ControlError(.helloFirst, "send {\"cmd\":\"hello\",\"protocol\":\(ControlDecoder.protocolVersion)} first")
        }
        switch command {
        case .hello:
            return []
        case .setLogLevel(let level):
            output.setLevel(level)
            return [("level", .string(level.name))]
        case .start(let start):
            return try startShare(start)
        case .addReceiver(let add):
            return try addReceiver(add)
        case .removeReceiver(let id):
            var s = try running()
            guard let connection = s.receivers.removeValue(forKey: id) else { throw unknown(id) }
            s.order.removeAll { $0 == id }
            s.insecure.remove(id)
            share = s
            liveness.forget(id)
            s.recovery.detach(id)
            s.session.removeReceiver(connection)
            output.log(.info, "screen", "\(connection.config.displayName) removed")
            return [("receiver", .string(id))]
        case .report(let report):
            let s = try running()
            guard s.receivers[report.receiver] != nil else { throw unknown(report.receiver) }
            if let figures = report.figures {
                output.log(.debug, "screen", "\(report.receiver) reports: \(figures.serialized.prefix(400))")
            }
            _ = s.recovery.stallReport(receiverID: report.receiver, SenderRecovery.Report(report))
            return [("receiver", .string(report.receiver))]
        case .setPolicy(let policy):
            try running().session.setPolicy(policy)
            return [("policy", .string(policy.rawValue))]
        case .updateReceiver(let id, let destination):
            guard let connection = try running().receivers[id] else { throw unknown(id) }
            let mayLeaveLoopback = allowUnencrypted && (share?.insecure.contains(id) ?? false)
            if connection.config.srtp == nil && !destination.isLoopback && !mayLeaveLoopback {
                throw ControlError(.insecureRefused, "plain RTP to \(destination) refused: not loopback, and the receiver was not added "
                                   + "with \"insecure\": true on a daemon started with --allow-unencrypted", field: "destination")
            }
            connection.setDestination(destination)
            output.log(.info, "screen", "\(connection.config.displayName) moved to \(destination)")
            return [("receiver", .string(id)), ("destination", .string(destination.description))]
        case .keyframe(let id):
            let s = try running()
            let targets: [SenderConnection]
            if let id {
                guard let c = s.receivers[id] else { throw unknown(id) }
                targets = [c]
            } else {
                targets = s.order.compactMap { s.receivers[$0] }
            }
            for c in targets { c.requestKeyframe(reason: "asked by the call client") }
            return []
        case .stop:
            let s = try running()
            share = nil
            s.session.stop()
            return []
        case .diagnostics:
            return [("text", .string(try running().diagnostics.text))]
        case .status:
            guard let s = share else { return [("sharing", .bool(false))] }
            return [("sharing", .bool(true))] + statusFields(s)
        }
    }

    private func running() throws(ControlError) -> Share {
        guard let share else { throw ControlError(.notSharing, "no share is running: send start first") }
        return share
    }

    private func unknown(_ id: String) -> ControlError {
        ControlError(.unknownReceiver, "no receiver \"\(id.prefix(128))\" in this share", field: "receiver")
    }

    private func startShare(_ start: StartShare) throws(ControlError) -> [(String, JSONValue)] {
        guard share == nil else { throw ControlError(.alreadySharing, "a share is already running: stop it first") }
        let source: any CaptureSource
        do {
            source = try SourceFactory.make(start.source, size: (start.width, start.height), fps: start.fps, scenario: start.scenario,
                                            output: output)
        } catch {
            throw ControlError(.badField, "\(error)", field: "source")
        }
        let session = ShareSession(source: source, parameters: ShareParameters(policy: start.policy, fps: start.fps),
                                   clock: clock, output: output)
        let recovery = ShareRecovery(session: session, clock: clock, output: output) { [weak self, weak session] reason in
            guard let session else { return }
            self?.captureEnded(session, reason: reason)
        }
        do {
            try session.start()
        } catch {
            session.stop()
            throw ControlError(.failed, "the capture could not start: \(error)")
        }
        share = Share(session: session, recovery: recovery, diagnostics: ShareDiagnostics(session: session, recovery: recovery))
        return [("source", .string(source.name)), ("policy", .string(start.policy.rawValue))]
    }

    private func addReceiver(_ add: AddReceiver) throws(ControlError) -> [(String, JSONValue)] {
        var s = try running()
        let config = add.config
        guard s.receivers[config.id] == nil else {
            throw ControlError(.duplicateReceiver, "a receiver \"\(config.id)\" is already in this share", field: "receiver")
        }
        if let refused = ControlTransportRule.check(add, allowUnencrypted: allowUnencrypted) { throw refused }
        let connection: SenderConnection
        do {
            connection = try s.session.addReceiver(config)
        } catch {
            throw ControlError(.failed, "cannot send to \(config.destination): \(error)")
        }
        s.recovery.attach(connection)
        s.receivers[config.id] = connection
        s.order.append(config.id)
        if add.insecure && config.srtp == nil { s.insecure.insert(config.id) }
        share = s
        output.log(.info, "screen", "\(config.displayName) added: \(config.codec.name) to \(config.destination) from \(connection.localAddress), "
                   + (config.srtp == nil ? "plain RTP" : "SRTP \(config.srtp!.profile.sdpName)"))
        var fields: [(String, JSONValue)] = [
            ("receiver", .string(config.id)), ("ssrc", .int(Int(connection.ssrc))), ("codec", .string(config.codec.name)),
            ("payloadType", .int(Int(config.payloadType))), ("localAddress", .string(connection.localAddress.description)),
        ]
        if case .h264(let id) = config.codec { fields.append(("profileLevelId", .string(id.description))) }
        return fields
    }

    // MARK: Once a second

    /// Runs the watchdogs and the ladder, and drops receivers that vanished.
    public func lookAfterRecovery() {
        guard let s = lock.withLock({ share }) else { return }
        s.recovery.tick()
        dropLostReceivers()
    }

    /// Sends the status lines: one per receiver and one for the whole share.
    public func sendStatus() {
        let fields = lock.withLock { share.map(statusFields) }
        guard let fields else { return }
        for case .array(let items) in fields.filter({ $0.0 == "receivers" }).map(\.1) {
            for item in items {
                guard case .object(let pairs) = item else { continue }
                output.event("status", pairs, human: (item["line1"]?.stringValue ?? "") + "\n" + (item["line2"]?.stringValue ?? ""))
            }
        }
        if let overall = fields.first(where: { $0.0 == "share" })?.1, case .object(let pairs) = overall {
            output.event("status", pairs, human: (overall["line1"]?.stringValue ?? "") + "\n" + (overall["line2"]?.stringValue ?? ""))
        }
    }

    /// A receiver that stopped answering is taken out of the share, as if
    /// removed, and the client is told; no other receiver is touched.
    private func dropLostReceivers() {
        let now = clock.now
        let lost = lock.withLock { () -> [SenderConnection] in
            guard var s = share else { return [] }
            var lost: [SenderConnection] = []
            for id in s.order {
                guard let c = s.receivers[id], liveness.isLost(id, feedback: c.feedbackReceived, now: now) else { continue }
                lost.append(c)
                s.receivers.removeValue(forKey: id)
                liveness.forget(id)
                s.recovery.detach(id)
            }
            s.order.removeAll { id in lost.contains { $0.config.id == id } }
            share = s
            return lost
        }
        for c in lost {
            lock.withLock { share?.session }?.removeReceiver(c)
            output.event("receiverLost", [("receiver", .string(c.config.id)),
                                          ("reason", .string("no RTCP for \(Int(ReceiverLiveness.timeout.inSeconds)) s"))],
                         human: "\(c.config.displayName) is gone: no RTCP for \(Int(ReceiverLiveness.timeout.inSeconds)) s")
        }
    }

    private func statusFields(_ s: Share) -> [(String, JSONValue)] {
        var statuses: [(String, ShareStatus)] = []
        for id in s.order {
            guard let c = s.receivers[id] else { continue }
            statuses.append((id, s.session.status(of: c, watchdog: s.recovery.doing(for: id))))
        }
        let overall = ShareOverview(policy: s.session.policy, capturedFPS: s.session.capturedFPS, receivers: statuses)
        let receivers: [JSONValue] = statuses.map { .object([("receiver", .string($0.0))] + $0.1.json) }
        return [("receivers", .array(receivers)), ("share", .object(overall.json))]
    }

    // MARK: The channel closed

    /// The client went away: the share ends cleanly (RTCP BYE to everyone).
    public func close() {
        let s = lock.withLock { () -> Share? in
            defer { share = nil }
            return share
        }
        s?.session.stop()
    }

    public var isSharing: Bool { lock.withLock { share != nil } }

    /// The capture cannot go on: that share ends with `reason`, as if the client had sent stop. The
    /// capture's own thread may be the one telling, and stopping waits for it, so the stop runs apart.
    private func captureEnded(_ session: ShareSession, reason: String) {
        let ended = lock.withLock { () -> Bool in
            guard share?.session === session else { return false }
            share = nil
            return true
        }
        guard ended else { return }
        DispatchQueue.global().async { session.stop(reason: reason) }
    }
}
