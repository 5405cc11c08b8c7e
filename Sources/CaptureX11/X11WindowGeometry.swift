import CXCB

/// Where a window is on screen now, asked of the server each time (it may
/// have moved, been resized, unmapped or closed since the last look).
enum X11WindowGeometry {
    enum State: Equatable {
        /// Mapped and viewable; the inside of the window (without its border) in root coordinates.
        case shown(X11Rect)
        /// Exists but is not viewable (unmapped, minimized, or inside an unmapped parent).
        case hidden(X11Rect)
        case closed
    }

    static func query(_ window: xcb_window_t, on connection: X11Connection) -> State {
        let c = connection.raw
        // Three requests in flight at once: one round trip, not three.
        let attributesCookie = xcb_get_window_attributes(c, window)
        let geometryCookie = xcb_get_geometry(c, window)
        let originCookie = xcb_translate_coordinates(c, window, connection.root, 0, 0)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let attributes = X11Connection.take(xcb_get_window_attributes_reply(c, attributesCookie, &error), error)
        error = nil
        let geometry = X11Connection.take(xcb_get_geometry_reply(c, geometryCookie, &error), error)
        error = nil
        let origin = X11Connection.take(xcb_translate_coordinates_reply(c, originCookie, &error), error)
        guard let attributes = attributes.reply, let geometry = geometry.reply, let origin = origin.reply else {
            return .closed
        }
        let rect = X11Rect(x: Int(origin.dst_x), y: Int(origin.dst_y),
                           width: Int(geometry.width), height: Int(geometry.height))
        return attributes.map_state == UInt8(XCB_MAP_STATE_VIEWABLE.rawValue) ? .shown(rect) : .hidden(rect)
    }
}
