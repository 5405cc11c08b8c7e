import Capture
import CaptureX11
import CapturePipeWire
import Events

/// What can be shared here, for `screenshare sources` and serve's `sources`:
/// the generated screen, an X display's monitors and windows, and whether a
/// ScreenCast portal answers on the session bus.
public struct SourceInventory: Sendable {
    public static let help = CommandHelp(
        usage: "screenshare sources [--display :N]",
        summary: "Lists what can be shared here: the generated screen, an X display's monitors and windows, and the ScreenCast portal.",
        options: [.init("display", ":N", "the X display to list", default: "$DISPLAY")])

    public let display: String?
    public let x11: Result<(monitors: [X11Monitor], windows: [X11WindowInfo]), CaptureError>
    public let portal: PortalProbe

    /// Asks the X display (nil: DISPLAY) and the portal; neither being there is an answer, not an error.
    public static func gather(display: String?) -> SourceInventory {
        let x11: Result<(monitors: [X11Monitor], windows: [X11WindowInfo]), CaptureError>
        do {
            let found = try X11Inventory.list(display: display)
            x11 = .success((found.monitors, found.windows))
        } catch {
            x11 = .failure(error)
        }
        return SourceInventory(display: display, x11: x11, portal: ScreenCastPortal.probe())
    }

    /// As `screenshare sources` prints it.
    public var text: String {
        var lines = ["synthetic: a generated screen (--source synthetic)"]
        switch x11 {
        case .success(let found):
            lines.append("X11 \(display ?? "(DISPLAY)") (--source x11[:DISPLAY]):")
            lines.append(X11Inventory.format(monitors: found.monitors, windows: found.windows))
        case .failure(let error):
            lines.append("X11: \(error)")
        }
        lines.append("ScreenCast portal (--source portal): \(portal.description)")
        return lines.joined(separator: "\n")
    }

    /// serve's `sources` reply: the same, as figures, and the text beside them.
    public var json: [(String, JSONValue)] {
        var x11Fields: [(String, JSONValue)] = [("display", display.map(JSONValue.string) ?? .null)]
        switch x11 {
        case .success(let found):
            x11Fields.append(("reachable", .bool(true)))
            x11Fields.append(("monitors", .array(found.monitors.map { m in
                .object([("name", .string(m.name)), ("x", .int(m.x)), ("y", .int(m.y)), ("width", .int(m.width)), ("height", .int(m.height))])
            })))
            x11Fields.append(("windows", .array(found.windows.map { w in
                .object([("window", .string(SharedSource.hex(w.id))), ("title", .string(w.title)), ("x", .int(w.x)), ("y", .int(w.y)),
                         ("width", .int(w.width)), ("height", .int(w.height))])
            })))
        case .failure(let error):
            x11Fields += [("reachable", .bool(false)), ("problem", .string(error.message))]
        }
        var portalFields: [(String, JSONValue)] = [("reachable", .bool(portal.reachable))]
        if let version = portal.version { portalFields.append(("version", .int(Int(version)))) }
        if portal.reachable {
            portalFields.append(("sourceTypes", .array(portal.sourceTypes.names.map(JSONValue.string))))
            portalFields.append(("restores", .bool(portal.remembersChoice)))
        }
        if let problem = portal.problem { portalFields.append(("problem", .string(problem))) }
        return [("synthetic", .bool(true)), ("x11", .object(x11Fields)), ("portal", .object(portalFields)), ("text", .string(text))]
    }
}
