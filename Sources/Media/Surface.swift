import Glibc

/// One screen-sized picture in BGRx (what X11 and PipeWire deliver; libyuv calls it "ARGB").
///
/// Surfaces are allocated once by a `SurfacePool` and reused; the bytes are
/// written by the capture and read by encoders while they hold the surface.
public final class Surface: @unchecked Sendable {
    // Safety: the pool hands a surface to one writer at a time, and readers
    // only read it while holding it; the hold count is guarded by the pool's lock.
    public let index: Int
    public let capacity: Int
    public let pixels: UnsafeMutableRawPointer
    public private(set) var width = 0
    public private(set) var height = 0
    public var stride: Int { width * 4 }
    /// When the picture was taken, on the pipeline's clock.
    public internal(set) var captureTime = Instant.zero
    /// The source's frame counter (the synthetic source stamps it into the picture).
    public internal(set) var frameNumber: UInt64 = 0
    var holds = 0
    /// Whether capture wrote into it since the pool last gave idle pages back; guarded by the pool's lock.
    var writtenSinceGiveBack = false

    init(index: Int, capacity: Int) {
        self.index = index
        self.capacity = capacity
        pixels = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
    }

    deinit {
        pixels.deallocate()
    }

    /// Sets the picture's size before writing; fails if it would not fit.
    public func resize(width: Int, height: Int) -> Bool {
        guard width > 0, height > 0, width * height * 4 <= capacity else { return false }
        self.width = width
        self.height = height
        return true
    }

    /// Hands the pages past the first `keeping` bytes back to the system: they
    /// read as zeros when next touched. Only whole pages inside the allocation
    /// are given back, never the allocator's header before `pixels`.
    func giveBackPages(keeping: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let base = Int(bitPattern: pixels)
        let start = (base + keeping + page - 1) / page * page
        let end = (base + capacity) / page * page
        guard end > start, let from = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(from, end - start, MADV_DONTNEED)
    }

    public var bytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: pixels, count: height * stride)
    }

    /// The 32-bit BGRx pixel at (x, y), as a little-endian word 0xXXRRGGBB.
    public func pixel(x: Int, y: Int) -> UInt32 {
        pixels.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
    }
}
