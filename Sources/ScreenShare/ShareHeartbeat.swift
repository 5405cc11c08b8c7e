import Media

/// The running share's pulse, for `share` and `serve` alike: the recovery
/// machines are looked at four times a second, so that a step falls within a
/// quarter second of its schedule, and the status goes out once a second,
/// until `stop`.
final class ShareHeartbeat: @unchecked Sendable {
    // Safety: `stopped` is guarded by `condition`.
    static let recoveryTick: Duration = .milliseconds(250)
    static let statusInterval: Duration = .seconds(1)

    private let clock: any MonotonicClock
    private let condition: ClockCondition
    private var stopped = false

    init(clock: any MonotonicClock) {
        self.clock = clock
        condition = clock.makeCondition()
    }

    /// Beats until stopped, or until `status` returns false.
    func run(recovery: () -> Void, status: (Instant) -> Bool) {
        var nextTick = clock.now + ShareHeartbeat.recoveryTick
        var nextStatus = clock.now + ShareHeartbeat.statusInterval
        while true {
            let done = condition.withLock { () -> Bool in
                if !stopped { condition.wait(until: nextTick) }
                return stopped
            }
            if done { return }
            let now = clock.now
            guard now >= nextTick else { continue }
            nextTick = nextTick + ShareHeartbeat.recoveryTick
            recovery()
            guard now >= nextStatus else { continue }
            nextStatus = nextStatus + ShareHeartbeat.statusInterval
            if !status(now) { return }
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }
}
