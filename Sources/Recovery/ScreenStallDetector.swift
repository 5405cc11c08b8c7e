import Media

/// The receiver's side of a stall (docs/behaviour.md §6.1): notices that a shared screen has
/// decoded nothing, reports it to the sharer, and withdraws the report when
/// the picture moves again or the report has been held long enough.
///
/// Told the decoder's running count and ticked once a second. Any change in
/// the count is movement, a drop to a lower count included: a rebuilt screen's
/// count starts again from zero, and reading that as "no new frames" kept a
/// mended view reported as stalled.
public struct ScreenStallDetector: Sendable {
    /// docs/behaviour.md §6.1: 4 s with nothing decoded. The sender repeats a still screen
    /// once a second, so a healthy view never goes this long.
    public static let stallLimit: Duration = .seconds(4)
    /// docs/behaviour.md §6.1: the report is held for up to 3 minutes, then withdrawn, so a
    /// view that never comes back does not keep the sharer's ladder running.
    public static let reportHoldLimit: Duration = .seconds(180)
    /// What is still arriving is logged this often while stalled: enough to
    /// see packets, frames and PLIs change, without flooding the log.
    public static let statisticsInterval: Duration = .seconds(1)

    public enum State: Equatable, Sendable {
        /// Decoded frames moved at `lastMovement` (or the stream started then).
        case decoding(lastMovement: Instant)
        /// Nothing decoded since `since`; reported at `reportedAt`.
        case reporting(since: Instant, reportedAt: Instant, lastLoggedAt: Instant)
        /// Still nothing decoded, but the report has been withdrawn.
        case expired(since: Instant)
    }

    public enum Action: RecoveryAction, Equatable {
        /// Say `screenStalled` in the media report.
        case reportStalled(reason: String)
        /// Hand the stalled screen's picture to its view again.
        case rehandPicture(reason: String)
        /// Log what the statistics say is still arriving (packets, frames
        /// received, decoded, dropped, keyframes, PLIs sent, the decoder).
        case logStatistics(reason: String)
        /// Stop saying `screenStalled`: the picture moves again.
        case reportCleared(reason: String)
        /// Withdraw the report, held for as long as it may be: no clearing, the view
        /// is still stalled, and the sender must not say it is back.
        case reportExpired(reason: String)

        public var step: RecoveryStep {
            switch self {
            case .reportStalled: .reportStalled
            case .rehandPicture: .rehandPicture
            case .logStatistics: .logStatistics
            case .reportCleared: .reportCleared
            case .reportExpired: .reportExpired
            }
        }

        public var reason: String {
            switch self {
            case .reportStalled(let reason), .rehandPicture(let reason), .logStatistics(let reason),
                 .reportCleared(let reason), .reportExpired(let reason):
                reason
            }
        }
    }

    public private(set) var state: State
    private var lastCount = 0

    /// The screen's stream began at `startedAt`; nothing is decoded yet.
    public init(startedAt: Instant) {
        state = .decoding(lastMovement: startedAt)
    }

    /// A new SSRC for this screen (rebuilt or shared again): its decoder counts
    /// from zero. Not movement in itself; its first decoded frame is.
    public mutating func newStream(now: Instant) {
        lastCount = 0
    }

    /// The decoder's running count of decoded frames, at least once a second.
    public mutating func decoded(count: Int, now: Instant) -> [Action] {
        guard count != lastCount else { return [] }
        lastCount = count
        let previous = state
        state = .decoding(lastMovement: now)
        switch previous {
        case .decoding:
            return []
        case .reporting(let since, _, _):
            return [.reportCleared(reason: "decoding again after \((now - since).spoken) without a frame")]
        case .expired(let since):
            // The view is back: a clearing, which takes away the notice the withdrawn report left.
            return [.reportCleared(reason: "decoding again after \((now - since).spoken); the report had been withdrawn")]
        }
    }

    /// Called once a second.
    public mutating func tick(now: Instant) -> [Action] {
        switch state {
        case .decoding(let lastMovement):
            let quiet = now - lastMovement
            guard quiet >= Self.stallLimit else { return [] }
            state = .reporting(since: lastMovement, reportedAt: now, lastLoggedAt: now)
            let why = "nothing decoded for \(quiet.spoken)"
            return [.reportStalled(reason: why), .rehandPicture(reason: why), .logStatistics(reason: why)]
        case .reporting(let since, let reportedAt, let lastLoggedAt):
            if now - reportedAt >= Self.reportHoldLimit {
                state = .expired(since: since)
                return [.reportExpired(reason: "stall report held for \(Self.reportHoldLimit.spoken); withdrawing it")]
            }
            guard now - lastLoggedAt >= Self.statisticsInterval else { return [] }
            state = .reporting(since: since, reportedAt: reportedAt, lastLoggedAt: now)
            return [.logStatistics(reason: "still nothing decoded after \((now - since).spoken)")]
        case .expired:
            return []
        }
    }
}
