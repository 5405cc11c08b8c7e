import CPipeWire
import Media

/// The pointer as a producer sends it in `SPA_META_Cursor`: a position on
/// every frame, a bitmap only when it changes (so the last one is kept).
struct PipeWireCursor {
    /// Bitmaps larger than this are ignored: pointers are at most 256 px even on HiDPI.
    static let maxSide = 256
    /// Meta room we ask for: a 64×64 BGRA bitmap, the size compositors use.
    static let preferredMetaBytes = metaBytes(side: 64)

    static func metaBytes(side: Int) -> Int {
        MemoryLayout<spa_meta_cursor>.size + MemoryLayout<spa_meta_bitmap>.size + side * side * 4
    }

    private(set) var x = 0
    private(set) var y = 0
    private var hotspotX = 0
    private var hotspotY = 0
    private var width = 0
    private var height = 0
    /// Straight-alpha BGRA words, 0xAARRGGBB.
    private var pixels: [UInt32] = []
    private(set) var visible = false

    /// Reads the cursor meta of one buffer, if it carries any.
    mutating func update(from buffer: UnsafeMutablePointer<spa_buffer>) {
        let minimum = MemoryLayout<spa_meta_cursor>.size
        guard let raw = spa_buffer_find_meta_data(buffer, SPA_META_Cursor.rawValue, minimum) else { return }
        let meta = raw.assumingMemoryBound(to: spa_meta_cursor.self).pointee
        // An id of 0 means "no cursor information in this buffer".
        guard meta.id != 0 else { return }
        x = Int(meta.position.x)
        y = Int(meta.position.y)
        visible = true
        guard meta.bitmap_offset >= UInt32(minimum) else { return }
        let bitmap = (raw + Int(meta.bitmap_offset)).assumingMemoryBound(to: spa_meta_bitmap.self).pointee
        guard bitmap.format != 0 else { return }
        hotspotX = Int(meta.hotspot.x)
        hotspotY = Int(meta.hotspot.y)
        let w = Int(bitmap.size.width), h = Int(bitmap.size.height)
        // An offset of 0 means an invisible pointer.
        guard bitmap.offset >= UInt32(MemoryLayout<spa_meta_bitmap>.size), w > 0, h > 0,
              w <= Self.maxSide, h <= Self.maxSide,
              let format = PipeWirePixelFormat(spaFormat: bitmap.format) else {
            width = 0
            height = 0
            return
        }
        let source = raw + Int(meta.bitmap_offset) + Int(bitmap.offset)
        let stride = bitmap.stride > 0 ? Int(bitmap.stride) : w * 4
        pixels = Array(repeating: 0, count: w * h)
        for row in 0..<h {
            for column in 0..<w {
                var word = source.load(fromByteOffset: row * stride + column * 4, as: UInt32.self)
                if format.isRedFirst {
                    word = (word & 0xFF00_FF00) | ((word & 0xFF) << 16) | ((word >> 16) & 0xFF)
                }
                if format == .bgrx || format == .rgbx { word |= 0xFF00_0000 }
                pixels[row * w + column] = word
            }
        }
        width = w
        height = h
    }

    /// Blends the pointer into `surface`; `scale` maps stream to surface coordinates.
    func draw(into surface: Surface, scaleX: Double, scaleY: Double) {
        guard visible, width > 0 else { return }
        let left = Int(Double(x - hotspotX) * scaleX)
        let top = Int(Double(y - hotspotY) * scaleY)
        for row in 0..<height {
            let sy = top + row
            guard sy >= 0, sy < surface.height else { continue }
            for column in 0..<width {
                let sx = left + column
                guard sx >= 0, sx < surface.width else { continue }
                let over = pixels[row * width + column]
                let alpha = over >> 24
                guard alpha > 0 else { continue }
                let offset = sy * surface.stride + sx * 4
                let under = surface.pixels.load(fromByteOffset: offset, as: UInt32.self)
                surface.pixels.storeBytes(of: Self.blend(over, under, alpha: alpha), toByteOffset: offset, as: UInt32.self)
            }
        }
    }

    private static func blend(_ over: UInt32, _ under: UInt32, alpha: UInt32) -> UInt32 {
        guard alpha < 255 else { return over | 0xFF00_0000 }
        var result: UInt32 = 0xFF00_0000
        for shift: UInt32 in [0, 8, 16] {
            let a = (over >> shift) & 0xFF, b = (under >> shift) & 0xFF
            result |= ((a * alpha + b * (255 - alpha)) / 255) << shift
        }
        return result
    }
}
