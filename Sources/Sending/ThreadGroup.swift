import Foundation
import Media

/// An owner's named threads, which its stop waits for, apart from those it
/// has abandoned (an encode call that never returned): nothing waits on a
/// hung codec.
final class ThreadGroup: @unchecked Sendable {
    // Safety: `live` and `abandoned` are guarded by `condition`.
    private let condition: ClockCondition
    private var live: Set<String> = []
    private var abandoned: Set<String> = []

    init(clock: any MonotonicClock) {
        condition = clock.makeCondition()
    }

    func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        condition.withLock { _ = live.insert(name) }
        let thread = Thread { [self] in
            body()
            condition.withLock {
                live.remove(name)
                condition.broadcast()
            }
        }
        thread.name = name
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// No longer waits for `name`; true when it was still running.
    func abandon(_ name: String) -> Bool {
        condition.withLock {
            guard live.contains(name) else { return false }
            abandoned.insert(name)
            return true
        }
    }

    /// Waits until every thread not abandoned has returned.
    func waitForAll() {
        condition.withLock {
            while !live.subtracting(abandoned).isEmpty { condition.wait() }
        }
    }
}
