import Capture
import CapturePipeWire
import Events
import Foundation
import Media
import Recovery
import ControlProtocol
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
        let fps: Int
        /// What the client was last told is being shared.
        var shown: SharedSource
        var reporter: QualityReporter
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
    /// What a command leaves to do once `lock` is let go: stopping a connection, which waits for its threads.
    private var afterUnlock: [() -> Void] = []

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
                let fields: [(String, JSONValue)]
                switch request.command {
                // These may wait on a portal's picker or on the desktop: the share's
                // heartbeat must not wait with them, so they run outside the lock.
                case .setSource(let source): fields = try switchSource(source)
                case .sources(let display): fields = try inventory(display)
                default: fields = try performLocked(request.command)
                }
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
        let result = Result { () throws(ControlError) in try perform(command) }
        let deferred = afterUnlock
        afterUnlock = []
        lock.unlock()
        for action in deferred { action() }
        return try result.get()
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
        try requireGreeted()
        switch command {
        case .hello, .setSource, .sources:
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
            afterUnlock.append { [output] in
                s.session.removeReceiver(connection)
                output.log(.info, "screen", "\(connection.config.displayName) removed")
            }
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
            if let refused = ControlTransportRule.checkMove(connection.config, boundTo: connection.localAddress, to: destination,
                                                            mayLeaveLoopback: mayLeaveLoopback) {
                throw refused
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
            afterUnlock.append { s.session.stop() }
            return []
        case .diagnostics:
            return [("text", .string(try running().diagnostics.text))]
        case .status:
            guard let s = share else { return [("sharing", .bool(false))] }
            return [("sharing", .bool(true))] + statusFields(s)
        }
    }

    private static let helloFirst = ControlError(
        .helloFirst, "send {\"cmd\":\"hello\",\"protocol\":\(ControlDecoder.protocolVersion)} first")

    private func requireGreeted() throws(ControlError) {
        guard greeted else { throw Self.helloFirst }
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
        let source = try makeSource(start.source, fps: start.fps)
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
        let shown = SharedSource(source)
        share = Share(session: session, recovery: recovery, diagnostics: ShareDiagnostics(session: session, recovery: recovery),
                      fps: start.fps, shown: shown, reporter: QualityReporter(startedAt: clock.now))
        return shown.json + [("policy", .string(start.policy.rawValue))]
    }

    /// The source a request names. The portal's restore token is the client's to keep: the one it
    /// gave is presented, and the one the portal hands back goes to it in a `restoreToken` event.
    private func makeSource(_ request: SourceRequest, fps: Int) throws(ControlError) -> any CaptureSource {
        let output = self.output
        let tokens = HandedRestoreToken(request.restoreToken) { token, restored in
            output.event("restoreToken", [("token", .string(token)), ("restored", .bool(restored))],
                         human: restored ? "The portal restored the last choice" : "The portal handed back a new restore token")
        }
        do {
            return try SourceFactory.make(request, fps: fps, restoreTokens: tokens, output: output)
        } catch {
            throw ControlError(.badField, "\(error)", field: "source")
        }
    }

    /// `setSource`: the running share shows something else, with no renegotiation. The old source goes
    /// on until the new one has started (a portal may show its picker), so a refusal changes nothing.
    private func switchSource(_ request: SourceRequest) throws(ControlError) -> [(String, JSONValue)] {
        lock.lock()
        let current: Share
        do throws(ControlError) {
            try requireGreeted()
            current = try running()
        } catch {
            lock.unlock()
            throw error
        }
        lock.unlock()
        let replacement = try makeSource(request, fps: current.fps)
        do {
            try current.session.switchSource(to: replacement)
        } catch {
            throw ControlError(.failed, "\(replacement.name) could not start: \(error); still sharing \(current.session.sourceName)",
                               field: "source")
        }
        current.recovery.sourceReplaced()
        let shown = SharedSource(replacement)
        lock.withLock {
            if share?.session === current.session { share?.shown = shown }
        }
        return shown.json
    }

    /// `sources`: what could be shared here, as `screenshare sources` prints it.
    private func inventory(_ display: String?) throws(ControlError) -> [(String, JSONValue)] {
        guard lock.withLock({ greeted }) else { throw Self.helloFirst }
        return SourceInventory.gather(display: display).json
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
        if let rtx = connection.retransmissionSSRC { fields.append(("rtxSsrc", .int(Int(rtx)))) }
        return fields
    }

    // MARK: Once a second

    /// Runs the watchdogs and the ladder, and watches each receiver's RTCP.
    public func lookAfterRecovery() {
        guard let s = lock.withLock({ share }) else { return }
        s.recovery.tick()
        s.session.lookAfterResources()
        watchReceivers()
    }

    /// Sends the status lines: one per receiver and one for the whole share; when what is shared
    /// changed since the client was last told (a window resized), a `sharing` event first; and every
    /// 30 s the quality reports.
    public func sendStatus() {
        let now = clock.now
        typealias Beat = (changed: SharedSource?, statuses: [(String, ShareStatus)], overall: ShareOverview, reports: [[(String, JSONValue)]])
        let beat = lock.withLock { () -> Beat? in
            guard var s = share else { return nil }
            let shown = SharedSource(s.session.currentSource)
            let changed = shown == s.shown ? nil : shown
            s.shown = shown
            let statuses = receiverStatuses(s)
            let samples = statuses.compactMap { id, status in
                s.receivers[id].map { QualityReporter.Sample(id: id, name: $0.config.displayName, status: status,
                                                             tally: s.recovery.tally(for: id) ?? RecoveryTally()) }
            }
            let reports = s.reporter.sample(samples, capturedFPS: s.session.capturedFPS,
                                            captureRestarts: s.recovery.restartsOfTheCapture, now: now)
            share = s
            return (changed, statuses, ShareOverview(policy: s.session.policy, capturedFPS: s.session.capturedFPS, receivers: statuses), reports)
        }
        guard let beat else { return }
        if let changed = beat.changed {
            output.event("sharing", changed.json, human: "Sharing \(changed.name) at \(changed.width)×\(changed.height)")
        }
        for (id, status) in beat.statuses {
            output.event("status", [("receiver", .string(id))] + status.json, human: status.firstLine + "\n" + status.secondLine)
        }
        output.event("status", beat.overall.json, human: beat.overall.firstLine + "\n" + beat.overall.secondLine)
        for report in beat.reports {
            output.event("report", report, human: report.first { $0.0 == "text" }?.1.stringValue)
        }
    }

    /// Each receiver's RTCP, looked at: one silent for a while is being reconnected to (a `connection`
    /// event and a notice, both taken back once its RTCP keeps coming again); one that stopped
    /// answering altogether is taken out of the share, as if removed, and the client is told; no other
    /// receiver is touched.
    private func watchReceivers() {
        let now = clock.now
        let (changes, lost) = lock.withLock { () -> ([(SenderConnection, ReceiverLiveness.Change)], [SenderConnection]) in
            guard var s = share else { return ([], []) }
            var changes: [(SenderConnection, ReceiverLiveness.Change)] = []
            var lost: [SenderConnection] = []
            for id in s.order {
                guard let c = s.receivers[id], let change = liveness.look(id, feedback: c.feedbackReceived, now: now) else { continue }
                guard change == .lost else {
                    changes.append((c, change))
                    continue
                }
                lost.append(c)
                s.receivers.removeValue(forKey: id)
                liveness.forget(id)
                s.recovery.detach(id)
            }
            s.order.removeAll { id in lost.contains { $0.config.id == id } }
            share = s
            return (changes, lost)
        }
        for (c, change) in changes {
            let id = ("receiver", JSONValue.string(c.config.id))
            let name = c.config.displayName
            if case .reconnecting(let silence) = change {
                output.event("connection", [id, ("state", .string("reconnecting")), ("silentFor", .double(silence.inSeconds))],
                             human: "No RTCP from \(name) for \(Int(silence.inSeconds)) s")
                output.event("notice", [id, ("kind", .string("reconnecting")), ("text", .string(ReceiverLiveness.notice(name)))],
                             human: ReceiverLiveness.notice(name))
            } else {
                output.event("connection", [id, ("state", .string("connected"))], human: "\(name)'s RTCP is back")
                output.event("notice", [id, ("kind", .string("reconnecting")), ("cleared", .bool(true))], human: "Reconnected to \(name)")
            }
        }
        for c in lost {
            lock.withLock { share?.session }?.removeReceiver(c)
            output.event("receiverLost", [("receiver", .string(c.config.id)),
                                          ("reason", .string("no RTCP for \(Int(ReceiverLiveness.timeout.inSeconds)) s"))],
                         human: "\(c.config.displayName) is gone: no RTCP for \(Int(ReceiverLiveness.timeout.inSeconds)) s")
        }
    }

    private func receiverStatuses(_ s: Share) -> [(String, ShareStatus)] {
        s.order.compactMap { id in s.receivers[id].map { (id, s.session.status(of: $0, watchdog: s.recovery.doing(for: id))) } }
    }

    private func statusFields(_ s: Share) -> [(String, JSONValue)] {
        let statuses = receiverStatuses(s)
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
