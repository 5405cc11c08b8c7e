import Glibc
import Testing
@testable import Media

/// Residency comes from the kernel (`mincore`), so these fail if the pages
/// are not really handed back, or handed back while someone needs them.
struct SurfaceGiveBackTests {
    static let side = 256

    /// Resident pages among those wholly inside `bytes` of `surface`, starting at `offset`.
    static func residentPages(_ surface: Surface, from offset: Int, count bytes: Int) -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: surface.pixels) + offset + page - 1) / page * page
        let end = (Int(bitPattern: surface.pixels) + offset + bytes) / page * page
        var flags = [UInt8](repeating: 0, count: (end - start) / page)
        let ok = flags.withUnsafeMutableBufferPointer {
            mincore(UnsafeMutableRawPointer(bitPattern: start), end - start, $0.baseAddress)
        }
        precondition(ok == 0, "mincore failed")
        return flags.filter { $0 & 1 == 1 }.count
    }

    static func write(_ pool: SurfacePool, width: Int = side, height: Int = side, byte: UInt8 = 0x5A) -> Surface {
        let s = pool.checkoutForWriting()!
        _ = s.resize(width: width, height: height)
        s.bytes.initializeMemory(as: UInt8.self, repeating: byte)
        pool.finishWriting(s, captureTime: .zero, frameNumber: 0)
        return s
    }

    @Test func surfacesCaptureStoppedUsingAreGivenBackAndTheOneInUseIsKept() {
        let pool = SurfacePool(count: 3, width: Self.side, height: Self.side)
        let bytes = Self.side * Self.side * 4
        // Encoders behind: all three written and held at once, then released.
        let all = (0..<3).map { _ in Self.write(pool) }
        for s in all { pool.release(s) }
        for s in all { #expect(Self.residentPages(s, from: 0, count: bytes) > 0) }
        pool.giveBackIdlePages()
        for s in all { #expect(Self.residentPages(s, from: 0, count: bytes) > 0, "written since the last call: kept") }

        // Caught up: only the first surface is used until the next call.
        let first = Self.write(pool)
        #expect(first === all[0])
        pool.release(first)
        pool.giveBackIdlePages()
        #expect(Self.residentPages(all[0], from: 0, count: bytes) > 0)
        #expect(Self.residentPages(all[1], from: 0, count: bytes) == 0)
        #expect(Self.residentPages(all[2], from: 0, count: bytes) == 0)
    }

    @Test func aHeldSurfaceKeepsItsPicture() {
        let pool = SurfacePool(count: 2, width: Self.side, height: Self.side)
        let held = Self.write(pool, byte: 0xC3)
        pool.giveBackIdlePages()
        pool.giveBackIdlePages()
        #expect(held.bytes.allSatisfy { $0 == 0xC3 })
    }

    @Test func pagesPastASmallerPictureAreGivenBack() {
        let pool = SurfacePool(count: 1, width: Self.side, height: Self.side)
        let capacity = Self.side * Self.side * 4
        pool.release(Self.write(pool))
        let small = Self.write(pool, width: 64, height: 64)
        pool.release(small)
        pool.giveBackIdlePages()
        let picture = 64 * 64 * 4
        #expect(Self.residentPages(small, from: 0, count: picture) > 0)
        #expect(Self.residentPages(small, from: picture + 4096, count: capacity - picture - 4096) == 0)
    }
}
