import CXCB
import Foundation
import Glibc
import Media
import Synchronization

/// Tells the capture whether the screen changed within the shared area, from
/// the server's events: DAMAGE rectangles on the root window, and XFixes
/// cursor-shape notices. A thread of its own waits for them and calls
/// `changed` as each arrives, so a change starts a capture at once instead of
/// waiting for the capture's next look (docs/behaviour.md §2.6).
///
/// Without DAMAGE every look counts as a change: the share still works,
/// at the cost of encoding a still screen.
final class X11ChangeWatcher: @unchecked Sendable {
    // Safety: `pending` is behind its mutex and `finished` behind `exit`. XCB
    // is thread-safe: the event thread only waits for events, while the
    // capture thread makes requests and reads their replies.
    private struct Pending {
        /// The shared area in root coordinates, as the capture last saw it.
        var area: X11Rect
        var damaged = false
        var cursorShapeChanged = false
    }

    private let connection: X11Connection
    private let damage: xcb_damage_damage_t?
    private let damageNotify: UInt8?
    private let cursorNotify: UInt8?
    private let pending: Mutex<Pending>
    private let exit: ClockCondition
    private var finished = true

    init(connection: X11Connection, watchCursor: Bool, area: X11Rect, clock: any MonotonicClock) {
        self.connection = connection
        pending = Mutex(Pending(area: area))
        exit = clock.makeCondition()
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
            // object is queued by the time the check returns, and dropped below: the
            // first look captures anyway, and that damage would make a still
            // screen's second look capture again.
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
        while let event = xcb_poll_for_event(c) { free(event) }
        connection.flush()
    }

    var tracksDamage: Bool { damage != nil }

    /// Starts the event thread; `changed` hears each change that concerns the
    /// capture, and the connection breaking.
    func start(changed: @escaping @Sendable () -> Void) {
        exit.withLock { finished = false }
        let thread = Thread { [self] in
            while let event = xcb_wait_for_event(connection.raw) {
                var relevant = note(event)
                while let more = xcb_poll_for_queued_event(connection.raw) { relevant = note(more) || relevant }
                if relevant { changed() }
            }
            // The connection broke, or `stop` shut it: the capture sees which.
            changed()
            exit.withLock {
                finished = true
                exit.broadcast()
            }
        }
        thread.name = "capture-x11-events"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Ends the event thread by shutting the connection's socket, which
    /// makes its wait return; the connection is useless afterwards.
    func stop() {
        shutdown(xcb_get_file_descriptor(connection.raw), Int32(SHUT_RDWR))
        exit.withLock {
            while !finished { exit.wait() }
        }
    }

    /// Records one event and frees it; true when the capture should look.
    private func note(_ event: UnsafeMutablePointer<xcb_generic_event_t>) -> Bool {
        defer { free(event) }
        // The top bit only says the event was sent by a client (SendEvent).
        let type = event.pointee.response_type & 0x7F
        if type == damageNotify {
            let box = UnsafeRawPointer(event).load(as: xcb_damage_notify_event_t.self).area
            let rect = X11Rect(x: Int(box.x), y: Int(box.y), width: Int(box.width), height: Int(box.height))
            return pending.withLock { p in
                guard rect.intersects(p.area) else { return false }
                p.damaged = true
                return true
            }
        }
        if type == cursorNotify {
            pending.withLock { $0.cursorShapeChanged = true }
            return true
        }
        return false
    }

    /// Takes what changed since the last look: whether damage touched `area`
    /// (from now on the area events are matched against), and whether the
    /// cursor's shape changed.
    func take(within area: X11Rect) -> (damaged: Bool, cursorShapeChanged: Bool) {
        let taken = pending.withLock { p in
            defer {
                p.damaged = false
                p.cursorShapeChanged = false
            }
            p.area = area
            return (p.damaged, p.cursorShapeChanged)
        }
        guard let damage else { return (true, taken.1) }
        // Empties the damage region, so drawing there again is reported again. The
        // image is read after this request, so whatever it covers is in the frame.
        xcb_damage_subtract(connection.raw, damage, xcb_xfixes_region_t(XCB_NONE), xcb_xfixes_region_t(XCB_NONE))
        connection.flush()
        return taken
    }
}
