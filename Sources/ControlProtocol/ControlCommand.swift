import Encoding
import Events
import RTP
import SRTP
import Transport

/// One line of the control protocol, decoded: the command and the `id` the
/// client gave it (echoed in the reply). See docs/control-protocol.md.
public struct ControlRequest: Sendable {
    public var id: JSONValue?
    public var command: ControlCommand

    public init(id: JSONValue?, command: ControlCommand) {
        self.id = id
        self.command = command
    }
}

public enum ControlCommand: Sendable {
    /// The first message: the protocol version the client speaks.
    case hello(protocolVersion: Int, logLevel: EventOutput.Level?)
    case start(StartShare)
    /// Share something else on the running share, with no renegotiation.
    case setSource(SourceRequest)
    /// What could be shared here: an X display's monitors and windows, and the portal.
    case sources(display: String?)
    case addReceiver(AddReceiver)
    case removeReceiver(receiver: String)
    /// A receiver's media report: `screenStalled` and the figures behind it.
    case report(MediaReport)
    case setPolicy(SendPolicy)
    /// The receiver moved (a relay renewed, an address changed).
    case updateReceiver(receiver: String, destination: SocketAddress)
    case keyframe(receiver: String?)
    case stop
    case diagnostics
    case status
    case setLogLevel(EventOutput.Level)

    /// The name on the wire.
    public var name: String {
        switch self {
        case .hello: "hello"
        case .start: "start"
        case .setSource: "setSource"
        case .sources: "sources"
        case .addReceiver: "addReceiver"
        case .removeReceiver: "removeReceiver"
        case .report: "report"
        case .setPolicy: "setPolicy"
        case .updateReceiver: "updateReceiver"
        case .keyframe: "keyframe"
        case .stop: "stop"
        case .diagnostics: "diagnostics"
        case .status: "status"
        case .setLogLevel: "setLogLevel"
        }
    }

    public static let names = ["hello", "start", "setSource", "sources", "addReceiver", "removeReceiver", "report", "setPolicy",
                               "updateReceiver", "keyframe", "stop", "diagnostics", "status", "setLogLevel"]
}

/// `start`: what to capture and how to send it.
public struct StartShare: Sendable, Equatable {
    public var source = SourceRequest(kind: .synthetic)
    public var policy = SendPolicy.balanced
    public var fps = 30

    public init() {}
}

/// `addReceiver`: everything about one receiver. `config.srtp` is nil for
/// plain RTP, which `insecure` must ask for (see `ControlTransportRule`).
public struct AddReceiver: Sendable {
    public var config: ReceiverConfig
    public var insecure: Bool

    public init(config: ReceiverConfig, insecure: Bool) {
        self.config = config
        self.insecure = insecure
    }
}

public struct MediaReport: Sendable {
    public var receiver: String
    public var screenStalled: Bool
    /// The receiver withdraws a stall report it has held as long as it may: no clearing, the
    /// view is not back.
    public var expired: Bool
    /// What the receiver's statistics say (packets, frames decoded, …), logged as given.
    public var figures: JSONValue?

    public init(receiver: String, screenStalled: Bool, expired: Bool = false, figures: JSONValue?) {
        self.receiver = receiver
        self.screenStalled = screenStalled
        self.expired = expired
        self.figures = figures
    }
}
