/// A rectangle in root-window coordinates (pixels, y down).
struct X11Rect: Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The part both rectangles cover; empty when they do not meet.
    func intersection(_ other: X11Rect) -> X11Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(x + width, other.x + other.width)
        let bottom = min(y + height, other.y + other.height)
        return X11Rect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    func intersects(_ other: X11Rect) -> Bool {
        !intersection(other).isEmpty
    }
}
