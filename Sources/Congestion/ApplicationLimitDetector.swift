import Media

/// Tells when the sender sends far below its estimate (a still screen, a
/// small window): the feedback then says nothing about the path's ceiling,
/// so the estimate must neither grow on it nor fall for it, and when
/// sending picks up again a probe should check the estimate still holds.
public struct ApplicationLimitDetector: Sendable {
    /// Long enough to span a few frames, so one small frame is not a state.
    public static let window: Duration = .milliseconds(500)
    /// Below this share of the estimate the sender is application-limited.
    public static let enterRatio = 0.65
    /// Above this share it is using the estimate again; the gap between the
    /// two keeps the state from flapping.
    public static let leaveRatio = 0.80

    public enum Change: Equatable, Sendable {
        case entered, left
    }

    private var sent = RateMeter(window: ApplicationLimitDetector.window)
    private var firstSend: Instant?
    public private(set) var isLimited = false

    public init() {}

    public mutating func recordSent(bytes: Int, at now: Instant) {
        if firstSend == nil { firstSend = now }
        sent.record(bytes, at: now)
    }

    /// Compares the send rate with `estimate`; says when the state changes.
    public mutating func update(estimate: Double, at now: Instant) -> Change? {
        guard let firstSend, now - firstSend >= Self.window, estimate > 0 else { return nil }
        let ratio = sent.rate(at: now) * 8 / estimate
        if !isLimited, ratio < Self.enterRatio {
            isLimited = true
            return .entered
        }
        if isLimited, ratio > Self.leaveRatio {
            isLimited = false
            return .left
        }
        return nil
    }
}
