import Media

/// The pictures `PipeWireTestProducer` sends, so a test can check a captured
/// surface pixel for pixel: every pixel of frame n has one colour, except
/// the first, which holds n.
public enum PipeWireTestPattern {
    /// The pointer the producer sends as cursor metadata: an opaque square.
    public static let cursorColour: UInt32 = 0x00FF_00FF
    public static let cursorSide = 16
    public static let cursorHotspot = (x: 2, y: 2)

    /// Frame n's colour as a BGRx word 0x00RRGGBB. Channels stay within
    /// ranges that never make the cursor's magenta.
    public static func colour(frame: UInt64) -> UInt32 {
        let red = UInt32(20 + (frame * 7) % 200)
        let green = UInt32(30 + (frame * 13) % 200)
        let blue = UInt32(40 + (frame * 29) % 180)
        return red << 16 | green << 8 | blue
    }

    /// The low 24 bits of n, stored as a colour in the first pixel.
    public static func counterWord(frame: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: frame) & 0x00FF_FFFF
    }

    public static func frameNumber(in surface: Surface) -> UInt64 {
        UInt64(surface.pixel(x: 0, y: 0) & 0x00FF_FFFF)
    }

    /// Fills a picture of `format` with frame n.
    static func draw(frame: UInt64, into pixels: UnsafeMutableRawPointer, stride: Int,
                     width: Int, height: Int, format: PipeWirePixelFormat) {
        let colour = stored(colour(frame: frame), format: format)
        for column in 0..<width {
            pixels.storeBytes(of: colour, toByteOffset: column * 4, as: UInt32.self)
        }
        for row in 1..<max(1, height) {
            (pixels + row * stride).copyMemory(from: pixels, byteCount: width * 4)
        }
        pixels.storeBytes(of: stored(counterWord(frame: frame), format: format), as: UInt32.self)
    }

    /// A 0x00RRGGBB word as `format` lays it out in memory, opaque.
    static func stored(_ word: UInt32, format: PipeWirePixelFormat) -> UInt32 {
        let opaque = word | 0xFF00_0000
        guard format.isRedFirst else { return opaque }
        return (opaque & 0xFF00_FF00) | ((opaque & 0xFF) << 16) | ((opaque >> 16) & 0xFF)
    }
}
