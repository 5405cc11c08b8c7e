import CXCB
import Foundation
import Capture

/// One XCB connection and the screen it shares. The connection is closed on
/// deinit, which also frees everything made on the server through it
/// (damage objects, shared-memory attachments).
final class X11Connection {
    let raw: OpaquePointer
    /// The display as a person would write it, e.g. ":1", for messages.
    let displayName: String
    let root: xcb_window_t
    let screen: X11Rect

    init(display: String?) throws(CaptureError) {
        displayName = X11Connection.describe(display)
        var screenNumber: Int32 = 0
        // xcb_connect never returns NULL: failure is an "error connection" that must still be freed.
        let connection: OpaquePointer = xcb_connect(display, &screenNumber)
        guard xcb_connection_has_error(connection) == 0, let setup = xcb_get_setup(connection) else {
            xcb_disconnect(connection)
            throw CaptureError(.temporary, "Cannot open X display \(displayName) — is the X server running and DISPLAY set?")
        }
        var screens = xcb_setup_roots_iterator(setup)
        for _ in 0..<screenNumber where screens.rem > 0 {
            xcb_screen_next(&screens)
        }
        guard screens.rem > 0, let first = screens.data else {
            xcb_disconnect(connection)
            throw CaptureError(.permanent, "X display \(displayName) has no screen number \(screenNumber)")
        }
        let info = first.pointee
        raw = connection
        root = info.root
        screen = X11Rect(x: 0, y: 0, width: Int(info.width_in_pixels), height: Int(info.height_in_pixels))
    }

    deinit {
        xcb_disconnect(raw)
    }

    /// True once the server has gone away or the connection broke; it never recovers.
    var isBroken: Bool { xcb_connection_has_error(raw) != 0 }

    /// The error a broken connection becomes: temporary, because a restart reconnects.
    var lostError: CaptureError {
        CaptureError(.temporary, "Lost the connection to X display \(displayName) — the X server stopped or restarted")
    }

    /// The first event code of an extension, or nil when the server lacks it.
    func firstEvent(of ext: OpaquePointer) -> UInt8? {
        guard let data = xcb_get_extension_data(raw, ext), data.pointee.present != 0 else { return nil }
        return data.pointee.first_event
    }

    func flush() {
        xcb_flush(raw)
    }

    func atom(_ name: String) -> xcb_atom_t {
        let cookie = xcb_intern_atom(raw, 0, UInt16(name.utf8.count), name)
        guard let reply = xcb_intern_atom_reply(raw, cookie, nil) else { return xcb_atom_t(XCB_ATOM_NONE.rawValue) }
        defer { free(reply) }
        return reply.pointee.atom
    }

    func atomName(_ atom: xcb_atom_t) -> String? {
        guard let reply = xcb_get_atom_name_reply(raw, xcb_get_atom_name(raw, atom), nil) else { return nil }
        defer { free(reply) }
        return X11Connection.string(xcb_get_atom_name_name(reply), count: Int(xcb_get_atom_name_name_length(reply)))
    }

    static func string(_ bytes: UnsafePointer<CChar>?, count: Int) -> String {
        guard let bytes, count > 0 else { return "" }
        let buffer = UnsafeRawBufferPointer(start: bytes, count: count)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Takes an XCB reply and its error out of their malloc'd boxes.
    static func take<Reply>(
        _ reply: UnsafeMutablePointer<Reply>?, _ error: UnsafeMutablePointer<xcb_generic_error_t>?
    ) -> (reply: Reply?, errorCode: UInt8?) {
        defer {
            free(reply)
            free(error)
        }
        return (reply?.pointee, error?.pointee.error_code)
    }

    private static func describe(_ display: String?) -> String {
        if let display { return display }
        return ProcessInfo.processInfo.environment["DISPLAY"] ?? "(none: DISPLAY is not set)"
    }
}
