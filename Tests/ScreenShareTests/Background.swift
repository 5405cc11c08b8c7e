import Foundation
import Media

/// Work started on a thread of its own, and asked later whether it has returned: a test of something that
/// must not block then fails, rather than hangs, when it does. Waits are on the system clock's condition.
final class Background: @unchecked Sendable {
    // Safety: `done` is read and written only with `condition`'s lock held.
    private let clock = SystemClock()
    private let condition: ClockCondition
    private var done = false

    init(_ body: @escaping @Sendable () -> Void) {
        condition = clock.makeCondition()
        Thread { [self] in
            body()
            condition.withLock {
                done = true
                condition.broadcast()
            }
        }.start()
    }

    /// Whether the work returned within `limit` from now.
    func finished(within limit: Duration) -> Bool {
        let deadline = clock.now + limit
        return condition.withLock {
            while !done && clock.now < deadline { condition.wait(until: deadline) }
            return done
        }
    }
}

/// Runs `body` on a thread of its own and says whether it returned within `limit`.
func finishes(within limit: Duration, _ body: @escaping @Sendable () -> Void) -> Bool {
    Background(body).finished(within: limit)
}
