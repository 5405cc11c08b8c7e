/// What a recovery action does, named the same way in the `screen` log, in
/// diagnostics and in the status line, whichever state machine asked for it.
public enum RecoveryStep: String, Sendable, Hashable {
    // The capture watchdog.
    case restartCapture
    // A receiver connection's watchdog.
    case keyframe
    case freshEncoder
    case restoreFullSize
    case newTransceiver
    case stoodDown
    // A receiver's stall report.
    case notice
    case clearNotice
    case rebuild
    case shareAgain
    case skipped
    case gaveUp
    case reportWithdrawn
    // A receiver that restarted and cannot read the stream.
    case newStream
    // The receiver's own stall detector.
    case reportStalled
    case rehandPicture
    case logStatistics
    case reportCleared
    case reportExpired
}

/// An action any of the recovery state machines can return: it says which
/// step it is and why it was taken, so one history and one log line serve all.
public protocol RecoveryAction: Sendable {
    var step: RecoveryStep { get }
    /// A sentence for the `screen` log category and diagnostics.
    var reason: String { get }
}
