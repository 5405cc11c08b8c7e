import Synchronization

/// The six-surface queue of docs/behaviour.md §2.3.
///
/// Capture writes into a free surface; encoders and the still-frame repeat
/// hold surfaces while they use them. When every surface is held, the
/// capture drops that frame (counted) instead of waiting: a share must
/// never stop dead because a consumer is slow.
public final class SurfacePool: Sendable {
    /// Six: enough for one frame being written, one per encoder in flight and
    /// the still-frame repeat, without the memory of a deep queue.
    public static let defaultCount = 6

    public struct Counters: Sendable, Equatable {
        public var written: UInt64 = 0
        public var droppedAllHeld: UInt64 = 0
        public var droppedLate: UInt64 = 0
    }

    private struct State: ~Copyable {
        var counters = Counters()
    }

    private let surfaces: [Surface]
    private let state = Mutex(State())

    public init(count: Int = SurfacePool.defaultCount, width: Int, height: Int) {
        let capacity = width * height * 4
        surfaces = (0..<count).map { Surface(index: $0, capacity: capacity) }
    }

    public var count: Int { surfaces.count }

    public var counters: Counters { state.withLock { $0.counters } }

    /// A free surface held once by the caller (the writer), or nil when all
    /// are held: the frame is dropped and counted.
    public func checkoutForWriting() -> Surface? {
        state.withLock { state in
            for s in surfaces where s.holds == 0 {
                s.holds = 1
                s.writtenSinceGiveBack = true
                return s
            }
            state.counters.droppedAllHeld += 1
            return nil
        }
    }

    /// Stamps a written surface with its capture time and number.
    public func finishWriting(_ surface: Surface, captureTime: Instant, frameNumber: UInt64) {
        state.withLock { state in
            surface.captureTime = captureTime
            surface.frameNumber = frameNumber
            state.counters.written += 1
        }
    }

    public func hold(_ surface: Surface) {
        state.withLock { _ in surface.holds += 1 }
    }

    public func release(_ surface: Surface) {
        state.withLock { _ in
            precondition(surface.holds > 0, "surface released more often than held")
            surface.holds -= 1
        }
    }

    /// Gives the memory of what capture no longer uses back to the system:
    /// every page of a free surface not written since the last call, and the
    /// pages of a free surface past its picture. Capture takes the first free
    /// surface, so a share's working set stays on the first few; the others
    /// are touched only when encoders fall behind for a while (a loaded
    /// machine, a hung encoder) and, without this, stay resident for the rest
    /// of the share: 3.5 MiB a 720p surface, 8 MiB at 1080p. Held surfaces are
    /// left alone.
    public func giveBackIdlePages() {
        state.withLock { _ in
            for s in surfaces where s.holds == 0 {
                s.giveBackPages(keeping: s.writtenSinceGiveBack ? s.height * s.stride : 0)
                s.writtenSinceGiveBack = false
            }
        }
    }

    /// Records a frame an encoder refused because it arrived too late.
    public func countLateDrop() {
        state.withLock { $0.counters.droppedLate += 1 }
    }
}
