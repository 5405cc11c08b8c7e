import CXCB
import Glibc

/// Tells each tick whether the screen changed within the shared area, from
/// the server's events: DAMAGE rectangles on the root window, and XFixes
/// cursor-shape notices (handed to the cursor).
///
/// Without DAMAGE every tick counts as a change: the share still works,
/// at the cost of encoding a still screen.
final class X11ChangeWatcher {
    private let connection: X11Connection
    private let damage: xcb_damage_damage_t?
    private let damageNotify: UInt8?
    private let cursorNotify: UInt8?

    init(connection: X11Connection, watchCursor: Bool) {
        self.connection = connection
        let c = connection.raw
        if let first = connection.firstEvent(of: CXCB_damage_id()),
           let version = xcb_damage_query_version_reply(c, xcb_damage_query_version(c, 1, 1), nil) {
            // DAMAGE answers only clients that said which version they speak.
            free(version)
            let id = xcb_generate_id(c)
            // Delta rectangles: one event per newly damaged rectangle (a child window's
            // drawing arrives with its own rectangle), quiet until we subtract.
            let level = UInt8(XCB_DAMAGE_REPORT_LEVEL_DELTA_RECTANGLES.rawValue)
            // Checked, so the whole-screen damage the server reports for a new damage
            // object is queued before the first tick (which captures anyway) drains it;
            // arriving later, it would make a still screen's second tick capture.
            let error = xcb_request_check(c, xcb_damage_create_checked(c, id, connection.root, level))
            let created = error == nil
            free(error)
            damage = created ? id : nil
            damageNotify = created ? first + UInt8(XCB_DAMAGE_NOTIFY) : nil
        } else {
            damage = nil
            damageNotify = nil
        }
        cursorNotify = watchCursor ? connection.firstEvent(of: CXCB_xfixes_id()).map { $0 + UInt8(XCB_XFIXES_CURSOR_NOTIFY) } : nil
        connection.flush()
    }

    var tracksDamage: Bool { damage != nil }

    /// Drains the events that arrived since the last tick. Returns whether
    /// damage touched `area`; calls `cursorShapeChanged` on cursor notices.
    func poll(within area: X11Rect, cursorShapeChanged: () -> Void) -> Bool {
        let c = connection.raw
        var damaged = damage == nil
        while let event = xcb_poll_for_event(c) {
            defer { free(event) }
            // The top bit only says the event was sent by a client (SendEvent).
            let type = event.pointee.response_type & 0x7F
            if type == damageNotify {
                let box = UnsafeRawPointer(event).load(as: xcb_damage_notify_event_t.self).area
                let rect = X11Rect(x: Int(box.x), y: Int(box.y), width: Int(box.width), height: Int(box.height))
                if rect.intersects(area) { damaged = true }
            } else if type == cursorNotify {
                cursorShapeChanged()
            }
        }
        if let damage {
            // Empties the damage region, so drawing there again is reported again.
            xcb_damage_subtract(c, damage, xcb_xfixes_region_t(XCB_NONE), xcb_xfixes_region_t(XCB_NONE))
            connection.flush()
        }
        return damaged
    }
}
