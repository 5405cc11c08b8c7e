import Dispatch
import Media
import Synchronization
import Testing
@testable import Capture

/// The ticker's real thread in simulated time (`ManualClock.run(for:)`): a
/// wake starts a run at once, or at the end of the frame period.
struct FrameTickerTests {
    final class Runs: Sendable {
        let clock: ManualClock
        let times = Mutex<[Instant]>([])

        init(_ clock: ManualClock) { self.clock = clock }

        /// Records the run; only the first run and runs after a wake capture.
        func run(_ tick: UInt64) -> Bool {
            times.withLock { $0.append(clock.now) }
            return tick == 0
        }

        var all: [Instant] { times.withLock { $0 } }
    }

    @Test func wake_runsAtOnceAfterAPeriod_elseAtItsEnd() {
        let clock = ManualClock()
        let runs = Runs(clock)
        let ticker = FrameTicker(fps: 30, name: "ticker-test")
        let period = Duration.nanoseconds(1_000_000_000 / 30)
        let captured = Mutex(false)
        let firstRun = DispatchSemaphore(value: 0)
        ticker.start(on: clock) { tick in
            let woken = captured.withLock { c in defer { c = false }; return c }
            defer { if tick == 0 { firstRun.signal() } }
            return runs.run(tick) || woken
        }
        defer { ticker.stop() }
        // Time moves only once the thread is running: its first run is at 0.
        firstRun.wait()

        // 0: the first run captures; 33.3: a look finds nothing.
        clock.run(for: .milliseconds(50))
        #expect(runs.all == [Instant.zero, Instant.zero + period])

        // 50: a change, more than a period after the capture at 0: a run at 50, not at the look at 66.7.
        captured.withLock { $0 = true }
        ticker.wake()
        clock.run(for: .zero)
        #expect(runs.all.last == Instant.zero + .milliseconds(50))

        // 60: a change only 10 ms after that capture: nothing until 83.3, a period after it.
        clock.run(for: .milliseconds(10))
        let before = runs.all.count
        captured.withLock { $0 = true }
        ticker.wake()
        clock.run(for: .milliseconds(20))
        #expect(runs.all.count == before)
        clock.run(for: .milliseconds(5))
        #expect(runs.all.count == before + 1)
        #expect(runs.all.last == Instant.zero + .milliseconds(50) + period)
    }
}
