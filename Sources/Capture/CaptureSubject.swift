/// What a capture shows, in the words a call client puts on screen ("You are
/// sharing the window “Terminal”"): which monitor or window, when the source knows.
public struct CaptureSubject: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// The generated screen.
        case generated
        /// A whole screen (every monitor of an X screen, or what the portal made up).
        case screen
        case monitor
        case region
        case window
        /// A PipeWire node that says nothing more of itself.
        case node
    }

    public var kind: Kind
    /// The monitor's name or the window's title.
    public var name: String?
    /// The X window id.
    public var window: UInt32?
    /// The PipeWire node the frames come from.
    public var node: UInt32?

    public init(_ kind: Kind, name: String? = nil, window: UInt32? = nil, node: UInt32? = nil) {
        self.kind = kind
        self.name = name
        self.window = window
        self.node = node
    }
}
