/// What part of an X11 display a share shows.
public enum X11Target: Sendable, Equatable {
    /// The whole screen (every monitor).
    case screen
    /// One RandR monitor, by its name as `xrandr --listmonitors` prints it.
    case monitor(String)
    /// A fixed rectangle of the screen, in screen pixels.
    case region(x: Int, y: Int, width: Int, height: Int)
    /// One top-level window, by its X id; the share follows it as it moves and resizes.
    case window(UInt32)

    /// Words for status and logs.
    var description: String {
        switch self {
        case .screen: return "screen"
        case .monitor(let name): return "monitor \(name)"
        case .region(let x, let y, let width, let height): return "region \(width)×\(height) at \(x),\(y)"
        case .window(let id): return "window \(X11Target.hex(id))"
        }
    }

    /// Window ids are written in hex everywhere in X tools (xwininfo, xdotool, xprop).
    static func hex(_ id: UInt32) -> String {
        "0x" + String(id, radix: 16)
    }
}
