#if canImport(Glibc)
import Glibc
#endif

/// Marks a thread that a `ManualClock` woke and counts as running, so the
/// clock hears when it waits again, or when it ends without waiting (a
/// thread-specific value's destructor runs at thread exit).
enum ThreadMark {
    private final class Mark {
        let clock: ManualClock
        init(_ clock: ManualClock) { self.clock = clock }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<Mark>.fromOpaque(raw).takeRetainedValue().clock.threadEnded()
        }
        return key
    }()

    static func set(for clock: ManualClock) {
        if pthread_getspecific(key) != nil { return }
        pthread_setspecific(key, Unmanaged.passRetained(Mark(clock)).toOpaque())
    }

    /// Clears this thread's mark; true when it had one for `clock`.
    static func clear(for clock: ManualClock) -> Bool {
        guard let raw = pthread_getspecific(key) else { return false }
        let mark = Unmanaged<Mark>.fromOpaque(raw)
        guard mark.takeUnretainedValue().clock === clock else { return false }
        pthread_setspecific(key, nil)
        mark.release()
        return true
    }
}
