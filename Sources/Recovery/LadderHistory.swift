import Media

/// The last recovery steps of a share, for **Copy call diagnostics**: what was
/// done, for whom, when and why. Bounded, because a share can run for hours.
public struct LadderHistory: Equatable, Sendable {
    /// Enough for several full ladders across a handful of receivers (a full
    /// ladder is about twenty entries with its keyframes), and small enough
    /// to paste into a bug report.
    public static let capacity = 100

    public struct Entry: Equatable, Sendable {
        public let at: Instant
        /// The receiver's display name, or what else the step was about ("capture").
        public let subject: String
        public let step: RecoveryStep
        public let reason: String
    }

    /// Oldest first.
    public private(set) var entries: [Entry] = []
    /// Entries dropped to keep within `capacity`, so a reader knows the start is missing.
    public private(set) var dropped = 0

    public init() {}

    /// Records every action a state machine returned at `now` for `subject`.
    public mutating func record(_ actions: [some RecoveryAction], for subject: String, at now: Instant) {
        for action in actions {
            entries.append(Entry(at: now, subject: subject, step: action.step, reason: action.reason))
        }
        let excess = entries.count - Self.capacity
        if excess > 0 {
            entries.removeFirst(excess)
            dropped += excess
        }
    }

    /// One line per entry: "16.0s Vicky shareAgain: …".
    public var lines: [String] {
        entries.map { "\($0.at) \($0.subject) \($0.step.rawValue): \($0.reason)" }
    }
}
