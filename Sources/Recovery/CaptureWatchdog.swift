import Media

/// Restarts a capture that has gone silent (docs/behaviour.md §4.2, the sender's own watchdog).
///
/// Told of every real capture and of a damage-driven source's "alive, nothing
/// changed" heartbeat; ticked once a second. A capture that reports nothing for
/// `captureSilenceLimit` is restarted on the same content, and a restart that
/// brings nothing back is tried again after `restartRetryInterval`.
///
/// The still-frame repeat must never be reported here: it re-encodes the last
/// frame whether or not the capture is alive, so counting it would hide a
/// capture that has stopped.
public struct CaptureWatchdog: Sendable {
    /// docs/behaviour.md §4.2: a capture that reports nothing for 3 s is restarted. Long enough
    /// that a 1 s tick cannot fire between two frames of a 1 fps source.
    public static let captureSilenceLimit: Duration = .seconds(3)
    /// docs/behaviour.md §4.2 gives no separate figure; a restart is given the same 3 s to
    /// report before the next, so a source that takes a moment to reopen is not
    /// restarted again while it is still opening.
    public static let restartRetryInterval: Duration = .seconds(3)

    public enum State: Equatable, Sendable {
        /// The capture reported at `lastHeard` (or started then).
        case hearing(lastHeard: Instant)
        /// The capture was restarted at `at` and has reported nothing since.
        case restarted(at: Instant)
    }

    public enum Action: RecoveryAction, Equatable {
        case restartCapture(reason: String)

        public var step: RecoveryStep { .restartCapture }

        public var reason: String {
            switch self {
            case .restartCapture(let reason): reason
            }
        }
    }

    public private(set) var state: State
    /// Restarts since the share began, for the status line and diagnostics.
    public private(set) var restartCount = 0
    /// Restarts since the capture last reported, to say whether restarting helps.
    public private(set) var consecutiveRestarts = 0

    public init(startedAt: Instant) {
        state = .hearing(lastHeard: startedAt)
    }

    /// The capture produced a new frame.
    public mutating func captureDelivered(now: Instant) -> [Action] {
        heard(now: now)
    }

    /// A damage-driven source (XDamage, a PipeWire stream that only sends on
    /// change) says it is running and the screen has not changed: silence that
    /// is the screen's, not the capture's.
    public mutating func captureReportedIdle(now: Instant) -> [Action] {
        heard(now: now)
    }

    /// Called once a second.
    public mutating func tick(now: Instant) -> [Action] {
        switch state {
        case .hearing(let lastHeard):
            let silent = now - lastHeard
            guard silent >= Self.captureSilenceLimit else { return [] }
            return restart(now: now, why: "capture reported nothing for \(silent.spoken)")
        case .restarted(let at):
            let silent = now - at
            guard silent >= Self.restartRetryInterval else { return [] }
            return restart(now: now, why: "restarted capture reported nothing for \(silent.spoken)")
        }
    }

    private mutating func heard(now: Instant) -> [Action] {
        state = .hearing(lastHeard: now)
        consecutiveRestarts = 0
        return []
    }

    private mutating func restart(now: Instant, why: String) -> [Action] {
        state = .restarted(at: now)
        restartCount += 1
        consecutiveRestarts += 1
        return [.restartCapture(reason: "\(why); restarting on the same content (restart \(restartCount))")]
    }
}
