import CXCB
import Foundation
import Capture

/// One RandR monitor: a named rectangle of the X screen.
public struct X11Monitor: Sendable, Equatable {
    public let name: String
    public let x: Int
    public let y: Int
    public let width: Int
    public let height: Int

    public init(name: String, x: Int, y: Int, width: Int, height: Int) {
        self.name = name
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    var rect: X11Rect { X11Rect(x: x, y: y, width: width, height: height) }

    /// e.g. "HDMI-1 1920×1080 at 0,0"
    public var description: String { "\(name) \(width)×\(height) at \(x),\(y)" }

    /// The monitors RandR reports (`xcb_randr_get_monitors`, RandR 1.5).
    static func list(on connection: X11Connection) throws(CaptureError) -> [X11Monitor] {
        let c = connection.raw
        let noRandR = CaptureError(
            .permanent,
            "X display \(connection.displayName) has no RandR 1.5, so its monitors cannot be listed — share the screen or a region instead")
        guard connection.firstEvent(of: CXCB_randr_id()) != nil else { throw noRandR }
        // RandR answers only clients that said which version they speak.
        let version = xcb_randr_query_version_reply(c, xcb_randr_query_version(c, 1, 5), nil)
        defer { free(version) }
        guard let version, version.pointee.major_version > 1 || version.pointee.minor_version >= 5 else { throw noRandR }

        guard let reply = xcb_randr_get_monitors_reply(c, xcb_randr_get_monitors(c, connection.root, 1), nil) else {
            throw connection.isBroken ? connection.lostError
                : CaptureError(.temporary, "X display \(connection.displayName) did not list its monitors")
        }
        defer { free(reply) }
        var monitors: [X11Monitor] = []
        var iterator = xcb_randr_get_monitors_monitors_iterator(reply)
        while iterator.rem > 0, let info = iterator.data?.pointee {
            let name = connection.atomName(info.name) ?? "monitor \(monitors.count)"
            monitors.append(X11Monitor(name: name, x: Int(info.x), y: Int(info.y),
                                       width: Int(info.width), height: Int(info.height)))
            xcb_randr_monitor_info_next(&iterator)
        }
        return monitors
    }

    /// The monitor called `name`, or an error that lists the monitors there are.
    static func named(_ name: String, on connection: X11Connection) throws(CaptureError) -> X11Monitor {
        let monitors = try list(on: connection)
        if let match = monitors.first(where: { $0.name == name }) { return match }
        let existing = monitors.isEmpty ? "none" : monitors.map(\.description).joined(separator: ", ")
        throw CaptureError(.permanent, "X display \(connection.displayName) has no monitor named \"\(name)\"; its monitors are: \(existing)")
    }
}
