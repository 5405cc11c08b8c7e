import Foundation
import Media
import Synchronization

/// A thread that calls `body` at a steady frame rate until stopped, on the
/// clock of the capture it drives. Sources that poll (synthetic, X11) run on
/// one; a tick that runs late is not made up for with a burst.
public final class FrameTicker: Sendable {
    private final class Run: @unchecked Sendable {
        // Safety: `running` and `finished` are guarded by `condition`.
        let condition: ClockCondition
        var running = true
        var finished = false

        init(_ condition: ClockCondition) { self.condition = condition }

        var isRunning: Bool { condition.withLock { running } }
    }

    private let current = Mutex<Run?>(nil)
    private let period: Duration
    private let name: String

    public init(fps: Int, name: String) {
        period = .nanoseconds(1_000_000_000 / Int64(max(1, fps)))
        self.name = name
    }

    public func start(on clock: any MonotonicClock, _ body: @escaping @Sendable (_ tick: UInt64) -> Void) {
        let run = Run(clock.makeCondition())
        current.withLock { $0 = run }
        let period = self.period
        let thread = Thread {
            var tick: UInt64 = 0
            var next = clock.now
            while run.isRunning {
                body(tick)
                tick += 1
                next = max(next + period, clock.now)
                run.condition.withLock {
                    while run.running && clock.now < next { run.condition.wait(until: next) }
                }
            }
            run.condition.withLock {
                run.finished = true
                run.condition.broadcast()
            }
        }
        thread.name = name
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Stops the thread and waits until its last tick is done.
    public func stop() {
        guard let run = current.withLock({ r -> Run? in defer { r = nil }; return r }) else { return }
        run.condition.withLock {
            run.running = false
            run.condition.broadcast()
            while !run.finished { run.condition.wait() }
        }
    }
}
