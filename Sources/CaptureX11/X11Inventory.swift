import Capture
/// What an X11 display offers to share, for `screenshare sources`.
public enum X11Inventory {
    /// The RandR monitors and the top-level windows of `display` (nil: DISPLAY).
    public static func list(display: String?) throws(CaptureError) -> (monitors: [X11Monitor], windows: [X11WindowInfo]) {
        let connection = try X11Connection(display: display)
        let monitors = try X11Monitor.list(on: connection)
        let windows = X11TopLevelWindows(connection: connection).list()
        if connection.isBroken { throw connection.lostError }
        return (monitors, windows)
    }

    /// Plain text, one source a line, under a heading for each kind.
    public static func format(monitors: [X11Monitor], windows: [X11WindowInfo]) -> String {
        var lines = ["Monitors:"]
        lines += monitors.isEmpty ? ["  (none)"] : monitors.map { "  \($0.description)" }
        lines.append("Windows:")
        lines += windows.isEmpty ? ["  (none)"] : windows.map { "  \($0.description)" }
        return lines.joined(separator: "\n") + "\n"
    }
}
