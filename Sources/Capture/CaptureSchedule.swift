import Media

/// When a capture thread runs next (docs/behaviour.md §2.6): it looks once a
/// frame period, and a change on screen (a damage event, a new buffer) starts
/// a capture at once when a frame period has passed since the last capture,
/// else at the end of that period. So a change is not left waiting for the
/// next look, and captures are never closer than a frame period.
///
/// Pure: the ticker feeds it instants and waits until `next`.
public struct CaptureSchedule: Sendable {
    public let period: Duration
    /// When the periodic look is due.
    public private(set) var nextLook: Instant
    public private(set) var lastCapture: Instant?
    /// When a change was announced that no run has taken yet.
    public private(set) var changedAt: Instant?

    public init(period: Duration, start: Instant) {
        self.period = period
        nextLook = start
    }

    /// Something changed at `now`; the next run comes as soon as the period allows.
    public mutating func changed(at now: Instant) {
        if changedAt == nil { changedAt = now }
    }

    /// When the next run is due: the look, or earlier for a change.
    public var next: Instant {
        guard let changedAt else { return nextLook }
        let allowed = lastCapture.map { max($0 + period, changedAt) } ?? changedAt
        return min(nextLook, allowed)
    }

    /// A run starts: it takes the pending change. Returns the instant it was due at.
    public mutating func begin() -> Instant {
        let due = next
        changedAt = nil
        return due
    }

    /// The run that was due at `due` has ended at `now`; `captured` says
    /// whether it produced a frame. Both the next look and the next capture a
    /// change may start are reckoned from when the run was due, so a steady
    /// source keeps its phase, the rate holds however late a thread wakes,
    /// and a run that is late is not made up for with a burst.
    public mutating func ran(due: Instant, captured: Bool, now: Instant) {
        if captured { lastCapture = due }
        nextLook = max(due + period, now)
    }
}
