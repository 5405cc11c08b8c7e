#if canImport(Glibc)
import Glibc
#endif

/// Where time comes from, and how to wait for it. Nothing in the pipeline
/// reads the wall clock or waits on it directly: every timed wait goes
/// through a condition made by the clock, so a `ManualClock` can run the
/// whole sender in simulated time.
public protocol MonotonicClock: Sendable {
    var now: Instant { get }
    /// A lock with a condition whose timed waits run on this clock.
    func makeCondition() -> ClockCondition
}

extension MonotonicClock {
    /// Sleeps until `deadline` on this clock.
    public func sleep(until deadline: Instant) {
        let condition = makeCondition()
        condition.withLock {
            while now < deadline {
                _ = condition.wait(until: deadline)
            }
        }
    }
}

/// `CLOCK_MONOTONIC`, for real shares: a step of the wall clock stretches no wait.
public struct SystemClock: MonotonicClock {
    public init() {}

    public var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    public func makeCondition() -> ClockCondition {
        MonotonicCondition()
    }
}
