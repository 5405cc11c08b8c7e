#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A clock that moves only when told to. Pure timelines call `advance(by:)`.
/// Threads that wait on its conditions can be run in simulated time with
/// `run(for:)`: time jumps from one wait's deadline to the next once every
/// thread it woke has gone back to waiting, so a 30 s recovery timeline
/// runs in the real time its work takes.
public final class ManualClock: MonotonicClock, @unchecked Sendable {
    // Safety: all mutable state is inside `state`.
    struct Waiter {
        let condition: ManualCondition
        let deadline: Instant?
        var woken = false
        var timedOut = false
    }

    struct State {
        var now: Instant
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        /// Threads woken from a wait that have not waited again or ended.
        var running = 0
        /// Moves on every park and wake, so a quiet spell can be told from a busy one.
        var activity = 0
    }

    private let state: Mutex<State>

    public init(_ start: Instant = .zero) {
        state = Mutex(State(now: start))
    }

    public var now: Instant {
        state.withLock { $0.now }
    }

    public func makeCondition() -> ClockCondition {
        ManualCondition(clock: self)
    }

    /// Moves time on at once, waking every wait whose deadline it passes.
    public func advance(by d: Duration) {
        let due = state.withLock { s -> [ManualCondition] in
            s.now = s.now + d
            return ManualClock.wakeDue(&s)
        }
        for condition in due { condition.wakeWaiters() }
    }

    /// Runs the threads waiting on this clock for `duration` of simulated time.
    public func run(for duration: Duration) {
        let end = now + duration
        while true {
            waitUntilQuiet()
            let due = state.withLock { s -> [ManualCondition]? in
                let next = s.waiters.values.compactMap { $0.woken ? nil : $0.deadline }.min()
                guard let next, next <= end else {
                    s.now = max(s.now, end)
                    return nil
                }
                s.now = max(s.now, next)
                return ManualClock.wakeDue(&s)
            }
            guard let due else { break }
            for condition in due { condition.wakeWaiters() }
        }
        waitUntilQuiet()
    }

    /// How long a woken thread may take to wait again before time moves on
    /// regardless: long enough for an encode, short enough that a thread
    /// stuck on purpose (a hung encoder) cannot hold the timeline.
    static let quietLimit: Duration = .seconds(3)
    /// A thread just started has this long to reach its first wait.
    static let settle: Duration = .milliseconds(2)

    private func waitUntilQuiet() {
        let real = SystemClock()
        let giveUp = real.now + ManualClock.quietLimit
        var seen = -1
        var quietSince = real.now
        while real.now < giveUp {
            let (running, activity) = state.withLock { ($0.running, $0.activity) }
            if running > 0 || activity != seen {
                seen = activity
                quietSince = real.now
            } else if real.now - quietSince >= ManualClock.settle {
                return
            }
            usleep(200)
        }
    }

    private static func wakeDue(_ s: inout State) -> [ManualCondition] {
        var due: [ManualCondition] = []
        for (id, w) in s.waiters where !w.woken {
            if let deadline = w.deadline, deadline <= s.now {
                s.waiters[id]!.woken = true
                s.waiters[id]!.timedOut = true
                s.running += 1
                s.activity += 1
                if !due.contains(where: { $0 === w.condition }) { due.append(w.condition) }
            }
        }
        return due
    }

    // MARK: For ManualCondition

    /// Registers a wait; nil when its deadline has already passed (the
    /// thread carries on, still counted as it was).
    func park(_ condition: ManualCondition, deadline: Instant?) -> Int? {
        if let deadline, deadline <= now { return nil }
        let leaving = ThreadMark.clear(for: self)
        return state.withLock { s -> Int? in
            if leaving { s.running -= 1 }
            s.activity += 1
            let id = s.nextID
            s.nextID += 1
            s.waiters[id] = Waiter(condition: condition, deadline: deadline)
            return id
        }
    }

    func isWoken(_ id: Int) -> Bool {
        state.withLock { $0.waiters[id]?.woken ?? true }
    }

    /// Removes a woken waiter; true when it was woken by its deadline.
    func unpark(_ id: Int) -> Bool {
        ThreadMark.set(for: self)
        return state.withLock { $0.waiters.removeValue(forKey: id)?.timedOut ?? false }
    }

    /// Marks the condition's waiters woken: one, or all.
    func wake(_ condition: ManualCondition, all: Bool) {
        state.withLock { s in
            for (id, w) in s.waiters where w.condition === condition && !w.woken {
                s.waiters[id]!.woken = true
                s.running += 1
                s.activity += 1
                if !all { break }
            }
        }
    }

    func threadEnded() {
        state.withLock {
            $0.running -= 1
            $0.activity += 1
        }
    }
}
