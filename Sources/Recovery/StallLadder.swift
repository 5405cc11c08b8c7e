import Media

/// The recovery ladder for one receiver's `screenStalled` report (docs/behaviour.md §5.2).
///
/// On the report: keyframes, and the notice that the view is recovering.
/// Still reported `rebuildAfterFirstKeyframe` after the first keyframe: that
/// person's screen is rebuilt (a new transceiver for them alone, same size and
/// policy). Still reported `shareAgainAfterRebuild` later: everyone's screen is
/// shared again from the same capture. `giveUpAfterShareAgain` after that, the
/// sharer is told it could not be restored. A report that clears stands the
/// ladder down and clears the notice.
///
/// A rebuild or share-again that is not allowed when due — rate limited, no
/// frames left for the person since the last step, or the sender's own screen
/// has stopped leaving (the connection watchdog's fault to mend) — waits for
/// as long as the next step is not due, then is passed over. The give-up notice
/// comes no later than `giveUpDeadline` after the report whatever happened, so
/// the sharer always hears within the gate's 30 s.
///
/// `SenderRecovery` drives it for each receiver, with that receiver's
/// connection watchdog and the share's one `ShareAgainBudget`.
public struct StallLadder: Sendable {
    /// Keyframes are repeated this often while the report stands. A keyframe
    /// can be lost on the way like any frame; 2 s lets the receiver decode the
    /// last one before asking again, and keeps this ladder far below the
    /// encoder's own one IDR per 300 ms, so it never causes a keyframe storm.
    public static let keyframeRepeatInterval: Duration = .seconds(2)
    /// docs/behaviour.md §5.2: keyframes get 6 s to mend the view before the rebuild.
    public static let rebuildAfterFirstKeyframe: Duration = .seconds(6)
    /// docs/behaviour.md §5.2: the rebuild gets 10 s (a new transceiver, and a new receiver
    /// and decoder there) before everyone is shared again.
    public static let shareAgainAfterRebuild: Duration = .seconds(10)
    /// docs/behaviour.md §5.2: the share-again gets 10 s before the sharer is told to act.
    public static let giveUpAfterShareAgain: Duration = .seconds(10)
    /// docs/behaviour.md §5.6 gate: restore the view within 30 s of the report, or say so.
    /// Steps that waited push the give-up notice later, never past this.
    public static let giveUpDeadline: Duration = .seconds(30)
    /// docs/behaviour.md §5.3: a rebuild at most once a minute per person, so a receiver
    /// whose decoder keeps wedging is not rebuilt in a loop.
    public static let rebuildMinimumSpacing: Duration = .seconds(60)

    /// One report, from the first keyframe to its clearing.
    public struct Episode: Equatable, Sendable {
        /// When the report came in and the first keyframe was asked for.
        public let reportedAt: Instant
        public internal(set) var lastKeyframeAt: Instant
        /// The last rung taken: the first keyframe, the rebuild, the share-again.
        public internal(set) var lastStepAt: Instant
        public internal(set) var rebuiltAt: Instant?
        public internal(set) var sharedAgainAt: Instant?

        init(reportedAt: Instant) {
            self.reportedAt = reportedAt
            lastKeyframeAt = reportedAt
            lastStepAt = reportedAt
        }

        var rebuildDue: Instant { reportedAt + StallLadder.rebuildAfterFirstKeyframe }
        var shareAgainDue: Instant { (rebuiltAt ?? rebuildDue) + StallLadder.shareAgainAfterRebuild }
        var giveUpDue: Instant {
            min((sharedAgainAt ?? shareAgainDue) + StallLadder.giveUpAfterShareAgain,
                reportedAt + StallLadder.giveUpDeadline)
        }
    }

    public enum State: Equatable, Sendable {
        case idle
        /// Reported; keyframes sent, the rebuild is next.
        case sendingKeyframes(Episode)
        /// The rebuild rung is behind (taken, or passed over); the share-again is next.
        case rebuilt(Episode)
        /// The share-again rung is behind; the give-up notice is next.
        case sharedAgain(Episode)
        /// Out of steps; stays here until the report clears.
        case gaveUp(Episode)
    }

    public enum Action: RecoveryAction, Equatable {
        case sendKeyframe(reason: String)
        case notice(StallNotice, reason: String)
        /// A new transceiver for this receiver alone, at the same size and policy.
        case rebuildReceiver(reason: String)
        /// Everyone's screen shared again from the same capture, no picker.
        case shareAgain(reason: String)
        /// A rung passed over without acting; logged so diagnostics show why.
        case stepPassed(RecoveryStep, reason: String)
        case clearNotice(reason: String)
        /// The receiver withdrew a report it had held as long as it may.
        case reportWithdrawn(reason: String)

        public var step: RecoveryStep {
            switch self {
            case .sendKeyframe: .keyframe
            case .notice(.couldNotRestore, _): .gaveUp
            case .notice: .notice
            case .rebuildReceiver: .rebuild
            case .shareAgain: .shareAgain
            case .stepPassed: .skipped
            case .clearNotice: .clearNotice
            case .reportWithdrawn: .reportWithdrawn
            }
        }

        public var reason: String {
            switch self {
            case .sendKeyframe(let reason), .rebuildReceiver(let reason),
                 .shareAgain(let reason), .clearNotice(let reason), .reportWithdrawn(let reason):
                reason
            case .notice(_, let reason), .stepPassed(_, let reason):
                reason
            }
        }
    }

    /// The receiver's display name, as the notices say it.
    public let receiver: String
    public private(set) var state: State = .idle
    /// Kept across reports: the once-a-minute limit is per person, not per report.
    public private(set) var lastRebuildAt: Instant?
    private var lastFrameLeftAt: Instant?

    public init(receiver: String) {
        self.receiver = receiver
    }

    /// The receiver says its view has decoded nothing for 4 s. Repeats of a
    /// standing report change nothing.
    public mutating func stallReported(now: Instant) -> [Action] {
        guard case .idle = state else { return [] }
        state = .sendingKeyframes(Episode(reportedAt: now))
        let why = "\(receiver) reports their view of your screen stalled"
        return [.sendKeyframe(reason: why), .notice(.recovering(receiver: receiver), reason: why)]
    }

    /// The receiver decodes again: stand down and take the notice away.
    public mutating func stallCleared(now: Instant) -> [Action] {
        guard let episode = state.episode else { return [] }
        state = .idle
        return [.clearNotice(reason: "\(receiver) decodes again \((now - episode.reportedAt).spoken) after the report")]
    }

    /// The receiver withdraws a report it has held as long as it may (docs/behaviour.md §6.1,
    /// §5.4): the view is not back, so this is no clearing. Nothing more is tried for the
    /// report, and the sharer is told it could not be restored if that was not said already;
    /// the notice stays until the receiver decodes again and clears.
    public mutating func stallWithdrawn(now: Instant) -> [Action] {
        guard let episode = state.episode else { return [] }
        let why = "\(receiver) withdrew a report held for \((now - episode.reportedAt).spoken); the view is not back"
        if state.isGaveUp { return [.reportWithdrawn(reason: why)] }
        state = .gaveUp(episode)
        return [.reportWithdrawn(reason: why), .notice(.couldNotRestore(receiver: receiver), reason: why)]
    }

    /// At least one frame left for this receiver at `now`. Call it whenever
    /// the receiver's sent count has moved, at least once a second.
    public mutating func framesLeft(now: Instant) {
        lastFrameLeftAt = now
    }

    /// Called once a second. `screenStoppedLeaving` is the receiver's
    /// `ConnectionWatchdog.screenStoppedLeaving`; `budget` is the share's one
    /// share-again limit, lent to every receiver's ladder in turn.
    public mutating func tick(
        now: Instant, screenStoppedLeaving: Bool, budget: inout ShareAgainBudget
    ) -> [Action] {
        var actions: [Action] = []
        while let taken = climb(now: now, stopped: screenStoppedLeaving, budget: &budget) {
            actions += taken
        }
        return actions + repeatKeyframe(now: now)
    }

    /// Takes or passes over the next rung if it is due; nil when nothing moved.
    private mutating func climb(now: Instant, stopped: Bool, budget: inout ShareAgainBudget) -> [Action]? {
        switch state {
        case .idle, .gaveUp:
            return nil
        case .sendingKeyframes(var episode):
            guard now >= episode.rebuildDue else { return nil }
            if let blocker = rebuildBlocker(episode, now: now, stopped: stopped) {
                guard now >= episode.shareAgainDue else { return nil }
                state = .rebuilt(episode)
                return [.stepPassed(.rebuild, reason: "no rebuild for \(receiver): \(blocker)")]
            }
            episode.rebuiltAt = now
            episode.lastStepAt = now
            episode.lastKeyframeAt = now
            lastRebuildAt = now
            state = .rebuilt(episode)
            let why = "\(receiver) still reports a stall \((now - episode.reportedAt).spoken) after the first keyframe"
            return [.rebuildReceiver(reason: why), .notice(.restarting(receiver: receiver), reason: why)]
        case .rebuilt(var episode):
            guard now >= episode.shareAgainDue else { return nil }
            if let at = budget.lastAt, at >= episode.reportedAt {
                episode.sharedAgainAt = at
                episode.lastStepAt = at
                state = .sharedAgain(episode)
                return [.stepPassed(.shareAgain, reason:
                    "everyone's screen was already shared again at \(at) for \(budget.lastReceiver ?? "another receiver")")]
            }
            if let blocker = shareAgainBlocker(episode, now: now, stopped: stopped, budget: budget) {
                guard now >= episode.giveUpDue else { return nil }
                state = .sharedAgain(episode)
                return [.stepPassed(.shareAgain, reason: "no share-again for \(receiver): \(blocker)")]
            }
            budget.spend(now: now, for: receiver)
            episode.sharedAgainAt = now
            episode.lastStepAt = now
            episode.lastKeyframeAt = now
            state = .sharedAgain(episode)
            let since = episode.rebuiltAt.map { "the rebuild \((now - $0).spoken) ago" } ?? "the report"
            return [.shareAgain(reason: "\(receiver) still reports a stall after \(since); sharing again for everyone")]
        case .sharedAgain(let episode):
            guard now >= episode.giveUpDue else { return nil }
            state = .gaveUp(episode)
            return [.notice(.couldNotRestore(receiver: receiver), reason:
                "\(receiver) still reports a stall \((now - episode.reportedAt).spoken) after the report; no steps left")]
        }
    }

    private mutating func repeatKeyframe(now: Instant) -> [Action] {
        guard var episode = state.episode, !state.isGaveUp,
              now - episode.lastKeyframeAt >= Self.keyframeRepeatInterval
        else { return [] }
        episode.lastKeyframeAt = now
        state = state.with(episode)
        return [.sendKeyframe(reason: "\(receiver) still reports a stall; keyframe again")]
    }

    /// Why a rebuild may not happen now, or nil if it may.
    private func rebuildBlocker(_ episode: Episode, now: Instant, stopped: Bool) -> String? {
        if stopped { return senderSideFault }
        if let last = lastRebuildAt, now - last < Self.rebuildMinimumSpacing {
            return "rebuilt \((now - last).spoken) ago, at most once a minute"
        }
        return noFramesLeft(since: episode.lastStepAt)
    }

    /// Why a share-again may not happen now, or nil if it may.
    private func shareAgainBlocker(
        _ episode: Episode, now: Instant, stopped: Bool, budget: ShareAgainBudget
    ) -> String? {
        if stopped { return senderSideFault }
        if let next = budget.blockedUntil(now: now) {
            return "everyone was shared again less than five minutes ago; next allowed at \(next)"
        }
        return noFramesLeft(since: episode.lastStepAt)
    }

    private var senderSideFault: String {
        "the screen has stopped leaving for \(receiver); the connection watchdog takes the sender-side steps"
    }

    private func noFramesLeft(since step: Instant) -> String? {
        if let left = lastFrameLeftAt, left > step { return nil }
        return "no frames have left for \(receiver) since the last step at \(step)"
    }
}

extension StallLadder.State {
    /// The report being handled, if any.
    public var episode: StallLadder.Episode? {
        switch self {
        case .idle: nil
        case .sendingKeyframes(let e), .rebuilt(let e), .sharedAgain(let e), .gaveUp(let e): e
        }
    }

    var isGaveUp: Bool {
        if case .gaveUp = self { return true }
        return false
    }

    /// The same rung, with the episode updated.
    func with(_ episode: StallLadder.Episode) -> Self {
        switch self {
        case .idle: .idle
        case .sendingKeyframes: .sendingKeyframes(episode)
        case .rebuilt: .rebuilt(episode)
        case .sharedAgain: .sharedAgain(episode)
        case .gaveUp: .gaveUp(episode)
        }
    }
}
