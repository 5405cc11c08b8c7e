#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Capture
import CapturePipeWire

/// A stand-in for xdg-desktop-portal's ScreenCast, for tests and for trying
/// the portal path on a machine with no desktop: owns
/// `org.freedesktop.portal.Desktop` on the bus it is given, answers every
/// request at once as if the person chose the given PipeWire node, and hands
/// out connections to the given PipeWire socket.
///
/// The real portal is tested too (`Tools/gnome-desktop`, the end-to-end
/// tests); the stand-in stays for what it cannot be made to do there with
/// nobody at the screen: a picker that is cancelled, one nobody answers, one
/// answered after a refused restore token, and a Response signal sent straight
/// after the method's reply. It treats restore tokens as xdg-desktop-portal
/// 1.16 does: one that is not a UUID is refused with an error, a known one
/// restores the choice and comes back unchanged, an unknown one is ignored.
///
/// It says what callers presented through `report`, one line per event:
/// `selected types=1 cursor_mode=2 persist_mode=2`, `restore_token_presented=TOKEN`
/// (or `=none`), `restore_token_refused=TOKEN`, `started node=42 restore_token=TOKEN restored=true`,
/// `start_cancelled`, `start_unanswered`, `pipewire_remote_opened`.
public final class PortalStandIn: @unchecked Sendable {
    // Safety: `link`, `sessions`, `tokensIssued`, `restoring` and `pendingResponse` are used only inside
    // `run`, which one thread runs; `stop` touches only the atomic flag.

    /// How Start is answered.
    public enum StartAnswer: Sendable {
        /// As if the person chose the node.
        case choose
        /// As if the person closed the picker.
        case cancel
        /// Never, as a picker nobody looks at.
        case never
    }

    public struct Options: Sendable {
        /// Nil is the session bus of `DBUS_SESSION_BUS_ADDRESS`.
        public var busAddress: String?
        /// The PipeWire node every Start returns.
        public var node: UInt32
        /// The PipeWire daemon's socket; each OpenPipeWireRemote connects to it anew.
        public var pipeWireSocket: String
        public var start: StartAnswer
        public var cursorModes: PortalCursorModes
        public var report: @Sendable (String) -> Void

        public init(busAddress: String? = nil, node: UInt32, pipeWireSocket: String, start: StartAnswer = .choose,
                    cursorModes: PortalCursorModes = [.hidden, .embedded, .metadata],
                    report: @escaping @Sendable (String) -> Void) {
            self.busAddress = busAddress
            self.node = node
            self.pipeWireSocket = pipeWireSocket
            self.start = start
            self.cursorModes = cursorModes
            self.report = report
        }
    }

    private enum SessionState { case created, selected, started }

    /// What the stand-in offers: the version with restore tokens, monitors and windows.
    public static let version: UInt32 = 4
    public static let sourceTypes: PortalSourceTypes = [.monitor, .window]
    /// How soon `run` notices `stop`.
    private static let stopPollInterval: Duration = .milliseconds(100)
    private static let failed = "org.freedesktop.DBus.Error.Failed"

    private let options: Options
    private let link: DBusLink
    private let stopping = Atomic<Bool>(false)
    private var sessions: [String: SessionState] = [:]
    private var tokensIssued: Set<String> = []
    /// Per session: the known token SelectSources presented, handed back by Start.
    private var restoring: [String: String] = [:]
    /// A Response signal that must follow the method's reply, which names its path.
    private var pendingResponse: DBusEnvelope?

    /// Connects to the bus and takes the portal's name; fails if a portal already has it.
    public init(_ options: Options) throws(CaptureError) {
        self.options = options
        link = try DBusLink(address: options.busAddress)
        try link.ownName(PortalNames.busName)
    }

    /// Answers calls until `stop` is called or the bus goes away.
    public func run() {
        while !stopping.load(ordering: .relaxed), link.isConnected {
            guard let message = link.nextMessage(waitingUpTo: Self.stopPollInterval),
                  message.kind == .methodCall else { continue }
            let answer: DBusEnvelope
            do throws(CaptureError) {
                answer = try handle(message)
            } catch {
                answer = message.errorReply(name: Self.failed, message: error.message)
            }
            try? link.send(answer)
            if let signal = pendingResponse.take() { try? link.send(signal) }
        }
    }

    public func stop() {
        stopping.store(true, ordering: .relaxed)
    }

    private func handle(_ call: DBusEnvelope) throws(CaptureError) -> DBusEnvelope {
        let arguments = call.arguments
        switch (call.interface, call.member) {
        case (PortalNames.properties?, "Get"?):
            guard arguments.first?.string == PortalNames.screenCast, let name = arguments.dropFirst().first?.string,
                  let value = properties.first(where: { $0.0 == name })?.1 else {
                return call.errorReply(name: PortalNames.invalidArgs, message: "No such property")
            }
            return call.reply([.variant(value)])
        case (PortalNames.properties?, "GetAll"?):
            return call.reply([.vardict(arguments.first?.string == PortalNames.screenCast ? properties : [])])
        case (PortalNames.screenCast?, "CreateSession"?):
            let choices = arguments.first?.dictionary ?? [:]
            let session = PortalNames.sessionPath(sender: call.sender ?? "", token: choices["session_handle_token"]?.string ?? "session")
            sessions[session] = .created
            return respond(to: call, choices: choices, code: 0, results: [("session_handle", .string(session))])
        case (PortalNames.screenCast?, "SelectSources"?):
            try expect(arguments, in: .created)
            let choices = arguments.dropFirst().first?.dictionary ?? [:]
            let number = { (key: String) in choices[key]?.uint32.map(String.init) ?? "none" }
            options.report("selected types=\(number("types")) cursor_mode=\(number("cursor_mode")) persist_mode=\(number("persist_mode"))")
            let presented = choices["restore_token"]?.string
            if let presented, UUID(uuidString: presented) == nil {
                options.report("restore_token_refused=\(presented)")
                return call.errorReply(name: PortalNames.invalidArgs, message: "Restore token is not a valid UUID string")
            }
            options.report("restore_token_presented=\(presented ?? "none")")
            let session = arguments[0].string ?? ""
            sessions[session] = .selected
            restoring[session] = presented.flatMap { tokensIssued.contains($0) ? $0 : nil }
            return respond(to: call, choices: choices, code: 0, results: [])
        case (PortalNames.screenCast?, "Start"?):
            try expect(arguments, in: .selected)
            let choices = arguments.dropFirst(2).first?.dictionary ?? [:]
            switch options.start {
            case .choose: break
            case .cancel:
                options.report("start_cancelled")
                return respond(to: call, choices: choices, code: 1, results: [])
            case .never:
                options.report("start_unanswered")
                return respond(to: call, choices: choices, code: nil, results: [])
            }
            sessions[arguments[0].string ?? ""] = .started
            let restored = restoring[arguments[0].string ?? ""]
            let token = restored ?? UUID().uuidString.lowercased()
            tokensIssued.insert(token)
            options.report("started node=\(options.node) restore_token=\(token) restored=\(restored != nil)")
            let stream = DBusValue.structure([.uint32(options.node), .vardict([("source_type", .uint32(PortalSourceTypes.monitor.rawValue))])])
            return respond(to: call, choices: choices, code: 0,
                           results: [("streams", .array(elementSignature: stream.signature, [stream])), ("restore_token", .string(token))])
        case (PortalNames.screenCast?, "OpenPipeWireRemote"?):
            try expect(arguments, in: .started)
            let descriptor = try PipeWireRemote.connectSocket(path: options.pipeWireSocket)
            // libdbus copies the descriptor into the message, so ours closes at once.
            defer { close(descriptor) }
            options.report("pipewire_remote_opened")
            return call.reply([.unixFD(descriptor)])
        case (PortalNames.session?, "Close"?):
            sessions[call.path ?? ""] = nil
            return call.reply([])
        case (PortalNames.request?, "Close"?):
            return call.reply([])
        default:
            return call.errorReply(name: PortalNames.unknownMethod,
                                   message: "The portal stand-in has no \(call.interface ?? "").\(call.member ?? "")")
        }
    }

    private var properties: [(String, DBusValue)] {
        [("AvailableSourceTypes", .uint32(Self.sourceTypes.rawValue)),
         ("AvailableCursorModes", .uint32(options.cursorModes.rawValue)),
         ("version", .uint32(Self.version))]
    }

    /// The first argument must be a session this stand-in made, in `state`.
    private func expect(_ arguments: [DBusValue], in state: SessionState) throws(CaptureError) {
        let path = arguments.first?.string ?? ""
        guard let current = sessions[path] else {
            throw CaptureError(.permanent, "No session \(path)")
        }
        guard current == state else {
            throw CaptureError(.permanent, "Session \(path) is \(current), not \(state)")
        }
    }

    /// Replies with the request path and queues its Response signal, as the
    /// portal does; a nil `code` leaves the request unanswered.
    private func respond(to call: DBusEnvelope, choices: [String: DBusValue], code: UInt32?,
                         results: [(String, DBusValue)]) -> DBusEnvelope {
        let sender = call.sender ?? ""
        let path = PortalNames.requestPath(sender: sender, token: choices["handle_token"]?.string ?? "request")
        pendingResponse = code.map {
            .signal(path: path, interface: PortalNames.request, member: "Response", destination: sender,
                    arguments: [.uint32($0), .vardict(results)])
        }
        return call.reply([.objectPath(path)])
    }
}
