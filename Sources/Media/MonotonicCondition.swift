#if canImport(Glibc)
import Glibc
#endif

/// A pthread condition on `CLOCK_MONOTONIC` (`NSCondition` waits on the
/// wall clock, which a clock step would stretch or cut short).
final class MonotonicCondition: ClockCondition, @unchecked Sendable {
    // Safety: the pthread objects are what make this type thread-safe.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func wait() { pthread_cond_wait(condition, mutex) }
    func signal() { pthread_cond_signal(condition) }
    func broadcast() { pthread_cond_broadcast(condition) }

    @discardableResult
    func wait(until deadline: Instant) -> Bool {
        var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &ts) == 0
    }
}
