import Foundation
import Media
import Synchronization

/// A thread that runs `body` once a frame period until stopped, on the clock
/// of the capture it drives, and sooner when told the screen changed
/// (`CaptureSchedule`). Sources that poll (synthetic, X11) run on one; a run
/// that is late is not made up for with a burst.
public final class FrameTicker: Sendable {
    private final class Run: @unchecked Sendable {
        // Safety: `running`, `finished` and `schedule` are guarded by `condition`.
        let condition: ClockCondition
        let clock: any MonotonicClock
        var running = true
        var finished = false
        var schedule: CaptureSchedule

        init(_ clock: any MonotonicClock, period: Duration) {
            self.clock = clock
            condition = clock.makeCondition()
            schedule = CaptureSchedule(period: period, start: clock.now)
        }
    }

    private let current = Mutex<Run?>(nil)
    private let period: Duration
    private let name: String

    public init(fps: Int, name: String) {
        period = .framePeriod(fps: fps)
        self.name = name
    }

    /// Starts the thread. `body` returns whether its run captured a frame:
    /// the next capture a change starts comes a frame period after it.
    public func start(on clock: any MonotonicClock, _ body: @escaping @Sendable (_ tick: UInt64) -> Bool) {
        let run = Run(clock, period: period)
        current.withLock { $0 = run }
        let thread = Thread {
            var tick: UInt64 = 0
            while let due = FrameTicker.waitForNext(run, clock) {
                let captured = body(tick)
                tick += 1
                run.condition.withLock { run.schedule.ran(due: due, captured: captured, now: clock.now) }
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

    /// Waits until the next run is due; the instant it was due at, or nil once stopped.
    private static func waitForNext(_ run: Run, _ clock: any MonotonicClock) -> Instant? {
        run.condition.withLock {
            while run.running && clock.now < run.schedule.next { run.condition.wait(until: run.schedule.next) }
            return run.running ? run.schedule.begin() : nil
        }
    }

    /// The screen changed: run as soon as a frame period since the last capture allows.
    public func wake() {
        guard let run = current.withLock({ $0 }) else { return }
        run.condition.withLock {
            run.schedule.changed(at: run.clock.now)
            run.condition.broadcast()
        }
    }

    /// Stops the thread and waits until its last run is done.
    public func stop() {
        guard let run = current.withLock({ r -> Run? in defer { r = nil }; return r }) else { return }
        run.condition.withLock {
            run.running = false
            run.condition.broadcast()
            while !run.finished { run.condition.wait() }
        }
    }
}
