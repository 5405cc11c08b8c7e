import CXCB
import Glibc

/// The mouse cursor, which X keeps out of screen images: its shape from
/// XFixes (fetched again only when XFixes says it changed) and its position
/// from the pointer (XFixes reports shape changes, not motion), drawn into
/// each frame.
final class X11Cursor {
    private let connection: X11Connection
    /// Premultiplied ARGB, `size.width * size.height` words, as XFixes sends it.
    private var image: [UInt32] = []
    private var size = (width: 0, height: 0)
    private var hotspot = (x: 0, y: 0)
    private var shapeKnown = false

    /// Where the cursor covers the root window now; nil when it is hidden or on another screen.
    private(set) var rect: X11Rect?

    /// Starts listening for shape changes (XFixes cursor notify events); nil without XFixes.
    init?(connection: X11Connection) {
        guard connection.firstEvent(of: CXCB_xfixes_id()) != nil else { return nil }
        let c = connection.raw
        // XFixes answers only clients that said which version they speak; 4.0 has cursor images.
        guard let version = xcb_xfixes_query_version_reply(c, xcb_xfixes_query_version(c, 4, 0), nil) else { return nil }
        free(version)
        xcb_xfixes_select_cursor_input(c, connection.root, UInt32(XCB_XFIXES_CURSOR_NOTIFY_MASK_DISPLAY_CURSOR.rawValue))
        self.connection = connection
    }

    /// Called for each XFixes cursor notify: the next update fetches the new shape.
    func shapeChanged() {
        shapeKnown = false
    }

    /// Looks where the cursor is now (and its shape, if that changed).
    /// Returns true when what it draws within `area` moved or changed.
    func update(within area: X11Rect) -> Bool {
        let c = connection.raw
        let pointerCookie = xcb_query_pointer(c, connection.root)
        let fetchShape = !shapeKnown
        if fetchShape { fetchImage() }
        let pointer = X11Connection.take(xcb_query_pointer_reply(c, pointerCookie, nil), nil).reply
        let previous = rect
        if let pointer, pointer.same_screen != 0, !image.isEmpty {
            rect = X11Rect(x: Int(pointer.root_x) - hotspot.x, y: Int(pointer.root_y) - hotspot.y,
                           width: size.width, height: size.height)
        } else {
            rect = nil
        }
        guard fetchShape || rect != previous else { return false }
        return previous?.intersects(area) == true || rect?.intersects(area) == true
    }

    private func fetchImage() {
        let c = connection.raw
        guard let reply = xcb_xfixes_get_cursor_image_reply(c, xcb_xfixes_get_cursor_image(c), nil) else { return }
        defer { free(reply) }
        shapeKnown = true
        let count = Int(xcb_xfixes_get_cursor_image_cursor_image_length(reply))
        let words = UnsafeBufferPointer(start: xcb_xfixes_get_cursor_image_cursor_image(reply), count: count)
        // A cursor with no opaque pixel is how programs hide it: nothing to draw.
        guard words.contains(where: { $0 >> 24 != 0 }) else {
            image.removeAll(keepingCapacity: true)
            return
        }
        image.removeAll(keepingCapacity: true)
        image.append(contentsOf: words)
        size = (Int(reply.pointee.width), Int(reply.pointee.height))
        hotspot = (Int(reply.pointee.xhot), Int(reply.pointee.yhot))
    }

    /// Blends the cursor over `pixels`, a BGRx picture of `area` (root coordinates).
    func draw(into pixels: UnsafeMutableRawPointer, stride: Int, area: X11Rect) {
        guard let rect else { return }
        let overlap = rect.intersection(area)
        guard !overlap.isEmpty else { return }
        image.withUnsafeBufferPointer { cursor in
            for y in overlap.y..<overlap.y + overlap.height {
                let row = (pixels + (y - area.y) * stride).assumingMemoryBound(to: UInt32.self)
                let cursorRow = (y - rect.y) * size.width - rect.x
                for x in overlap.x..<overlap.x + overlap.width {
                    row[x - area.x] = X11Cursor.over(cursor[cursorRow + x], row[x - area.x])
                }
            }
        }
    }

    /// Premultiplied "over": each channel is source + destination × (1 − source alpha).
    static func over(_ source: UInt32, _ destination: UInt32) -> UInt32 {
        let alpha = source >> 24
        if alpha == 0xFF { return source & 0x00FF_FFFF }
        if alpha == 0 { return destination }
        let keep = 0xFF - alpha
        func channel(_ shift: UInt32) -> UInt32 {
            let s = (source >> shift) & 0xFF
            let d = (destination >> shift) & 0xFF
            return min(0xFF, s + (d * keep + 0x7F) / 0xFF) << shift
        }
        return channel(0) | channel(8) | channel(16)
    }
}
