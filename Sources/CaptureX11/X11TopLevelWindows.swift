import CXCB
import Glibc

/// Finds the windows a person would call "a window": the root's mapped
/// children, or, where a window manager has wrapped a program's window in a
/// frame of its own, the titled window one level down.
struct X11TopLevelWindows {
    /// Titles longer than this many 32-bit units (4 KB) are cut: enough for any title bar.
    private static let titleLengthLimit: UInt32 = 1024

    let connection: X11Connection
    private let netWMName: xcb_atom_t
    private let utf8String: xcb_atom_t

    init(connection: X11Connection) {
        self.connection = connection
        netWMName = connection.atom("_NET_WM_NAME")
        utf8String = connection.atom("UTF8_STRING")
    }

    func list() -> [X11WindowInfo] {
        children(of: connection.root).compactMap { window in
            guard isCandidate(window) else { return nil }
            if let title = title(of: window) { return info(window, title: title) }
            let client = children(of: window).lazy.filter(isViewable).compactMap { child in
                title(of: child).map { (child, $0) }
            }.first
            if let (child, title) = client { return info(child, title: title) }
            return info(window, title: "")
        }
    }

    private func info(_ window: xcb_window_t, title: String) -> X11WindowInfo? {
        guard case .shown(let rect) = X11WindowGeometry.query(window, on: connection) else { return nil }
        return X11WindowInfo(id: window, title: title, x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }

    private func children(of window: xcb_window_t) -> [xcb_window_t] {
        let c = connection.raw
        guard let reply = xcb_query_tree_reply(c, xcb_query_tree(c, window), nil) else { return [] }
        defer { free(reply) }
        return Array(UnsafeBufferPointer(start: xcb_query_tree_children(reply),
                                         count: Int(xcb_query_tree_children_length(reply))))
    }

    /// Viewable and managed: override-redirect windows are menus, tooltips and the like.
    private func isCandidate(_ window: xcb_window_t) -> Bool {
        guard let attributes = attributes(of: window) else { return false }
        return attributes.map_state == UInt8(XCB_MAP_STATE_VIEWABLE.rawValue) && attributes.override_redirect == 0
    }

    private func isViewable(_ window: xcb_window_t) -> Bool {
        attributes(of: window)?.map_state == UInt8(XCB_MAP_STATE_VIEWABLE.rawValue)
    }

    private func attributes(of window: xcb_window_t) -> xcb_get_window_attributes_reply_t? {
        let c = connection.raw
        return X11Connection.take(xcb_get_window_attributes_reply(c, xcb_get_window_attributes(c, window), nil), nil).reply
    }

    /// `_NET_WM_NAME` (UTF-8, what current toolkits set), else the older `WM_NAME`.
    func title(of window: xcb_window_t) -> String? {
        if let name = property(netWMName, type: utf8String, of: window) { return name }
        return property(xcb_atom_t(XCB_ATOM_WM_NAME.rawValue), type: xcb_atom_t(XCB_GET_PROPERTY_TYPE_ANY.rawValue), of: window)
    }

    private func property(_ name: xcb_atom_t, type: xcb_atom_t, of window: xcb_window_t) -> String? {
        let c = connection.raw
        let cookie = xcb_get_property(c, 0, window, name, type, 0, X11TopLevelWindows.titleLengthLimit)
        guard let reply = xcb_get_property_reply(c, cookie, nil) else { return nil }
        defer { free(reply) }
        let length = Int(xcb_get_property_value_length(reply))
        guard length > 0, let value = xcb_get_property_value(reply) else { return nil }
        return X11Connection.string(value.assumingMemoryBound(to: CChar.self), count: length)
    }
}
