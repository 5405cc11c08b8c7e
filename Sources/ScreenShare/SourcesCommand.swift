import Capture
import CaptureX11
import CapturePipeWire

/// `screenshare sources [--display :N]`: what can be shared here.
public enum SourcesCommand {
    public static func text(display: String?) -> String {
        var lines = ["synthetic: a generated screen (--source synthetic)"]
        do {
            let found = try X11Inventory.list(display: display)
            lines.append("X11 \(display ?? "(DISPLAY)") (--source x11[:DISPLAY]):")
            lines.append(X11Inventory.format(monitors: found.monitors, windows: found.windows))
        } catch {
            lines.append("X11: \(error)")
        }
        lines.append("ScreenCast portal (--source portal): \(ScreenCastPortal.probe().description)")
        return lines.joined(separator: "\n")
    }
}
