/// A window a person could choose to share, as `screenshare sources` lists it.
public struct X11WindowInfo: Sendable, Equatable {
    /// The X window id, for `X11Target.window`.
    public let id: UInt32
    /// Empty when the window has no title.
    public let title: String
    public let x: Int
    public let y: Int
    public let width: Int
    public let height: Int

    public init(id: UInt32, title: String, x: Int, y: Int, width: Int, height: Int) {
        self.id = id
        self.title = title
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// e.g. `0x400001 "Terminal" 800×600 at 10,20`
    public var description: String {
        let name = title.isEmpty ? "(no title)" : "\"\(title)\""
        return "\(X11Target.hex(id)) \(name) \(width)×\(height) at \(x),\(y)"
    }
}
