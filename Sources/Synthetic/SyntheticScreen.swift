/// A generated screen: a page of text that scrolls, a window dragged across
/// it, and still periods, all a pure function of the frame number and seed,
/// so a receiver or a benchmark can regenerate any frame it was sent.
public final class SyntheticScreen: @unchecked Sendable {
    // Safety: immutable after init; `render` only reads.
    public enum Scenario: String, Sendable, CaseIterable {
        /// Scrolls, drags a window, then stays still: the demo and most tests.
        case demo
        /// Scrolls and drags at the same time, without pause: the motion benchmark.
        case motion
        /// Never changes after the first frame.
        case still
    }

    public enum Phase: Equatable, Sendable {
        case scrolling, dragging, still
    }

    public let width: Int
    public let height: Int
    public let fps: Int
    public let scenario: Scenario
    private let page: [UInt32]
    private let pageHeight: Int
    /// The text area of the page (the whole screen but the dragged window), for quality figures.
    public let textRegion: (x: Int, y: Int, width: Int, height: Int)

    /// Lines of text scroll by at four pixels a frame, about the speed of a wheel scroll.
    static let scrollPixelsPerFrame = 4
    static let cycleSeconds = (scrolling: 4, dragging: 3, still: 3)

    public init(width: Int, height: Int, fps: Int, scenario: Scenario = .demo, seed: UInt64 = 1) {
        self.width = width
        self.height = height
        self.fps = max(1, fps)
        self.scenario = scenario
        pageHeight = height * 3
        page = PageRenderer(width: width, height: height * 3, seed: seed).render()
        textRegion = (0, FrameStamp.height, width, height - FrameStamp.height)
    }

    public func phase(of frame: UInt64) -> Phase {
        switch scenario {
        case .still: return .still
        case .motion: return .scrolling
        case .demo:
            let c = SyntheticScreen.cycleSeconds
            let second = Int(frame / UInt64(fps)) % (c.scrolling + c.dragging + c.still)
            if second < c.scrolling { return .scrolling }
            if second < c.scrolling + c.dragging { return .dragging }
            return .still
        }
    }

    /// Whether frame `n` looks different from frame `n - 1` (what damage tracking would say).
    public func changes(at frame: UInt64) -> Bool {
        frame == 0 || phase(of: frame) != .still || phase(of: frame - 1) != .still
    }

    /// How far the page has scrolled at frame `n`: it moves only while scrolling.
    func scrollOffset(at frame: UInt64) -> Int {
        let moving: UInt64
        switch scenario {
        case .still: moving = 0
        case .motion: moving = frame
        case .demo:
            let c = SyntheticScreen.cycleSeconds
            let cycle = UInt64((c.scrolling + c.dragging + c.still) * fps)
            let full = frame / cycle
            let within = min(frame % cycle, UInt64(c.scrolling * fps))
            moving = full * UInt64(c.scrolling * fps) + within
        }
        let range = pageHeight - height
        return Int((moving * UInt64(SyntheticScreen.scrollPixelsPerFrame)) % UInt64(range))
    }

    /// The dragged window's top-left corner at frame `n`, or nil when it is not shown.
    func windowOrigin(at frame: UInt64) -> (x: Int, y: Int)? {
        let travel = max(1, width - windowSize.width)
        switch scenario {
        case .still: return nil
        case .motion:
            let x = Int((frame * 12) % UInt64(2 * travel))
            return (x < travel ? x : 2 * travel - x, height / 3)
        case .demo:
            guard phase(of: frame) != .scrolling else { return nil }
            let c = SyntheticScreen.cycleSeconds
            let cycle = UInt64((c.scrolling + c.dragging + c.still) * fps)
            let start = UInt64(c.scrolling * fps)
            let dragFrames = UInt64(c.dragging * fps)
            let step = min(frame % cycle - start, dragFrames)
            return (Int(step) * travel / Int(dragFrames), height / 4 + Int(step) % 40)
        }
    }

    var windowSize: (width: Int, height: Int) { (width * 3 / 10, height * 3 / 8) }

    /// Where the dragged window is drawn at frame `n` (clipped to the screen),
    /// or nil when it is not shown: the part of the screen that is not text.
    public func windowRect(at frame: UInt64) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard let origin = windowOrigin(at: frame) else { return nil }
        let size = windowSize
        let x0 = max(0, origin.x), y0 = max(0, origin.y)
        let x1 = min(width, origin.x + size.width), y1 = min(height, origin.y + size.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return (x0, y0, x1 - x0, y1 - y0)
    }

    /// Draws frame `n` into BGRx memory of `stride` bytes a row.
    public func render(frame: UInt64, into pixels: UnsafeMutableRawPointer, stride: Int) {
        let offset = scrollOffset(at: frame)
        page.withUnsafeBytes { source in
            for y in 0..<height {
                (pixels + y * stride).copyMemory(
                    from: source.baseAddress! + (offset + y) * width * 4, byteCount: width * 4)
            }
        }
        if let origin = windowOrigin(at: frame) {
            drawWindow(at: origin, into: pixels, stride: stride)
        }
        FrameStamp.write(UInt32(truncatingIfNeeded: frame), into: pixels, stride: stride, width: width)
    }

    private func drawWindow(at origin: (x: Int, y: Int), into pixels: UnsafeMutableRawPointer, stride: Int) {
        let size = windowSize
        let titleBar = 28
        for y in max(0, origin.y)..<min(height, origin.y + size.height) {
            let row = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
            let inTitle = y - origin.y < titleBar
            let colour: UInt32 = inTitle ? 0x0033_5C99 : 0x00EE_EEF2
            for x in max(0, origin.x)..<min(width, origin.x + size.width) {
                let border = x == origin.x || x == origin.x + size.width - 1 || y == origin.y + size.height - 1
                row[x] = border ? 0x0020_2020 : colour
            }
        }
    }
}
