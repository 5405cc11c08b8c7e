/// A condition of a `ManualClock`: timed waits end when the clock passes
/// their deadline, not when real time does.
final class ManualCondition: ClockCondition, @unchecked Sendable {
    // Safety: the pthread objects are what make this type thread-safe.
    private let clock: ManualClock
    /// Only its untimed waits are used: the clock decides when a deadline has passed.
    private let inner = MonotonicCondition()

    init(clock: ManualClock) {
        self.clock = clock
    }

    func lock() { inner.lock() }
    func unlock() { inner.unlock() }

    func wait() {
        _ = park(deadline: nil)
    }

    @discardableResult
    func wait(until deadline: Instant) -> Bool {
        park(deadline: deadline)
    }

    func signal() {
        clock.wake(self, all: false)
        inner.broadcast()
    }

    func broadcast() {
        clock.wake(self, all: true)
        inner.broadcast()
    }

    /// The clock passed a deadline of one of this condition's waiters. Taking
    /// the mutex first means no waiter is between its check and its wait.
    func wakeWaiters() {
        inner.withLock { inner.broadcast() }
    }

    private func park(deadline: Instant?) -> Bool {
        guard let id = clock.park(self, deadline: deadline) else { return false }
        while !clock.isWoken(id) { inner.wait() }
        return !clock.unpark(id)
    }
}
