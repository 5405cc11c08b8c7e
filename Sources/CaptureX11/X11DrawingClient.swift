import CXCB
import Glibc
import Capture

/// A second X client for tests (through `@testable import Capture`, since
/// Capture is the only module that may import XCB): paints the root and
/// makes, moves and closes plain coloured windows, so a test knows exactly
/// what the screen shows. Each call waits until the server has done it.
final class X11DrawingClient {
    private let connection: X11Connection
    private let graphics: xcb_gcontext_t

    init(display: String) throws(CaptureError) {
        connection = try X11Connection(display: display)
        graphics = xcb_generate_id(connection.raw)
        xcb_create_gc(connection.raw, graphics, connection.root, 0, nil)
    }

    /// Sets the root's background to `colour` (0xRRGGBB) and repaints it.
    func setRootColour(_ colour: UInt32) {
        var value = colour
        xcb_change_window_attributes(connection.raw, connection.root, XCB_CW_BACK_PIXEL.rawValue, &value)
        xcb_clear_area(connection.raw, 0, connection.root, 0, 0, 0, 0)
        sync()
    }

    /// Fills a rectangle of the root window with `colour`.
    func fillRoot(x: Int, y: Int, width: Int, height: Int, colour: UInt32) {
        var value = colour
        xcb_change_gc(connection.raw, graphics, XCB_GC_FOREGROUND.rawValue, &value)
        var box = xcb_rectangle_t(x: Int16(x), y: Int16(y), width: UInt16(width), height: UInt16(height))
        xcb_poly_fill_rectangle(connection.raw, connection.root, graphics, 1, &box)
        sync()
    }

    /// Makes and maps a borderless window filled with `colour`; returns its id.
    func createWindow(x: Int, y: Int, width: Int, height: Int, colour: UInt32, title: String? = nil) -> UInt32 {
        let c = connection.raw
        let window = xcb_generate_id(c)
        var value = colour
        xcb_create_window(c, UInt8(XCB_COPY_FROM_PARENT), window, connection.root, Int16(x), Int16(y),
                          UInt16(width), UInt16(height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue),
                          xcb_visualid_t(XCB_COPY_FROM_PARENT), XCB_CW_BACK_PIXEL.rawValue, &value)
        if let title {
            xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, xcb_atom_t(XCB_ATOM_WM_NAME.rawValue),
                                xcb_atom_t(XCB_ATOM_STRING.rawValue), 8, UInt32(title.utf8.count), title)
        }
        xcb_map_window(c, window)
        sync()
        return window
    }

    func configure(_ window: UInt32, x: Int, y: Int, width: Int, height: Int) {
        let mask = XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue
            | XCB_CONFIG_WINDOW_WIDTH.rawValue | XCB_CONFIG_WINDOW_HEIGHT.rawValue
        // Values in the order of the mask bits; X takes them as 32-bit words.
        let values = [UInt32(bitPattern: Int32(x)), UInt32(bitPattern: Int32(y)), UInt32(width), UInt32(height)]
        xcb_configure_window(connection.raw, window, UInt16(mask), values)
        sync()
    }

    func destroy(_ window: UInt32) {
        xcb_destroy_window(connection.raw, window)
        sync()
    }

    /// A round trip: when it returns, the server has carried out every earlier request.
    private func sync() {
        free(xcb_get_input_focus_reply(connection.raw, xcb_get_input_focus(connection.raw), nil))
    }
}
