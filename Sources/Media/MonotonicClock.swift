#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where time comes from. Nothing in the pipeline reads the wall clock directly.
public protocol MonotonicClock: Sendable {
    var now: Instant { get }
}

/// `CLOCK_MONOTONIC`, for real shares.
public struct SystemClock: MonotonicClock {
    public init() {}

    public var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}

/// A clock that moves only when told to, for timelines tested in microseconds.
public final class ManualClock: MonotonicClock {
    private let current: Mutex<Instant>

    public init(_ start: Instant = .zero) {
        current = Mutex(start)
    }

    public var now: Instant {
        current.withLock { $0 }
    }

    public func advance(by d: Duration) {
        current.withLock { $0 = $0 + d }
    }
}
