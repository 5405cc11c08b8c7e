import CMemfd
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
    /// The shared memory the pixels live in, for a source that can have them
    /// written in place (an X server reads the screen straight into it over
    /// MIT-SHM); nil where none could be made, and they are private memory.
    public let sharedMemory: Int32?
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
        if let (descriptor, mapped) = Surface.mapSharedMemory(capacity) {
            sharedMemory = descriptor
            pixels = mapped
        } else {
            sharedMemory = nil
            pixels = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
        }
    }

    deinit {
        if let sharedMemory {
            munmap(pixels, capacity)
            close(sharedMemory)
        } else {
            pixels.deallocate()
        }
    }

    /// Anonymous shared memory (memfd): only its descriptor names it, nothing
    /// outlives the process, and pages are taken as they are first written, as
    /// with private memory.
    private static func mapSharedMemory(_ capacity: Int) -> (Int32, UnsafeMutableRawPointer)? {
        let descriptor = CMemfd_create("screenshare-surface")
        guard descriptor >= 0 else { return nil }
        guard ftruncate(descriptor, off_t(capacity)) == 0,
              let mapped = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
              mapped != MAP_FAILED else {
            close(descriptor)
            return nil
        }
        return (descriptor, mapped)
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
        // Shared pages belong to the memory object, not the mapping: only removing them frees them.
        _ = madvise(from, end - start, sharedMemory == nil ? MADV_DONTNEED : MADV_REMOVE)
    }

    public var bytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: pixels, count: height * stride)
    }

    /// The 32-bit BGRx pixel at (x, y), as a little-endian word 0xXXRRGGBB.
    public func pixel(x: Int, y: Int) -> UInt32 {
        pixels.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
    }
}
