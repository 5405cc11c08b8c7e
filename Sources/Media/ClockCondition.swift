/// A mutex and a condition variable whose timed waits are measured on the
/// clock that made it. Used like `NSCondition`: lock, check, wait, re-check.
public protocol ClockCondition: AnyObject, Sendable {
    func lock()
    func unlock()
    /// Waits (the lock held) until signalled. Wake-ups may be spurious.
    func wait()
    /// Waits (the lock held) until signalled or `deadline`; false when the deadline passed.
    @discardableResult
    func wait(until deadline: Instant) -> Bool
    func signal()
    func broadcast()
}

extension ClockCondition {
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
