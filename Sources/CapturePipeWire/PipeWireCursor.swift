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

    /// Cursor bitmaps refused: offsets, a size or a stride that do not fit the meta area they came in,
    /// a side over `maxSide`, or a pixel format that is not one of ours.
    private(set) var refused = 0

    /// Reads the cursor meta of one buffer, if it carries any.
    mutating func update(from buffer: UnsafeMutablePointer<spa_buffer>) {
        guard let meta = spa_buffer_find_meta(buffer, SPA_META_Cursor.rawValue), let data = meta.pointee.data else { return }
        update(meta: UnsafeRawBufferPointer(start: data, count: Int(meta.pointee.size)))
    }

    /// Reads a cursor meta area. It lies in the producer's shared memory and is
    /// not trusted (docs/behaviour.md §9): every offset, size and the stride
    /// are checked against the area before a byte is read, and what does not
    /// fit is refused and counted.
    mutating func update(meta area: UnsafeRawBufferPointer) {
        let cursorSize = MemoryLayout<spa_meta_cursor>.size
        let bitmapSize = MemoryLayout<spa_meta_bitmap>.size
        guard area.count >= cursorSize else { return }
        let meta = area.loadUnaligned(as: spa_meta_cursor.self)
        // An id of 0 means "no cursor information in this buffer".
        guard meta.id != 0 else { return }
        x = Int(meta.position.x)
        y = Int(meta.position.y)
        visible = true
        // No bitmap in this buffer: the last one still stands.
        guard meta.bitmap_offset >= UInt32(cursorSize) else { return }
        let bitmapStart = Int(meta.bitmap_offset)
        guard bitmapStart <= area.count - bitmapSize else { return refuse() }
        let bitmap = area.loadUnaligned(fromByteOffset: bitmapStart, as: spa_meta_bitmap.self)
        guard bitmap.format != 0 else { return }
        hotspotX = Int(meta.hotspot.x)
        hotspotY = Int(meta.hotspot.y)
        let w = Int(bitmap.size.width), h = Int(bitmap.size.height)
        // An offset of 0 means an invisible pointer.
        guard bitmap.offset >= UInt32(bitmapSize), w > 0, h > 0 else {
            width = 0
            height = 0
            return
        }
        let stride = bitmap.stride > 0 ? Int(bitmap.stride) : w * 4
        let pixelStart = bitmapStart + Int(bitmap.offset)
        guard w <= Self.maxSide, h <= Self.maxSide, stride >= w * 4, let format = PipeWirePixelFormat(spaFormat: bitmap.format),
              pixelStart <= area.count, (h - 1) * stride + w * 4 <= area.count - pixelStart else {
            width = 0
            height = 0
            return refuse()
        }
        pixels = Array(repeating: 0, count: w * h)
        for row in 0..<h {
            for column in 0..<w {
                var word = area.loadUnaligned(fromByteOffset: pixelStart + row * stride + column * 4, as: UInt32.self)
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

    private mutating func refuse() {
        refused += 1
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
