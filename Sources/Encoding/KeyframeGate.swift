import Media

/// Decides when a keyframe request becomes an IDR (docs/behaviour.md §7.4): at once when
/// the last IDR is at least 300 ms old, otherwise when it turns 300 ms old.
/// However many receivers ask, and however often (Chromium repeats a PLI
/// about every 200 ms while it waits), one IDR answers them all.
public struct KeyframeGate: Sendable {
    public static let minimumInterval: Duration = .milliseconds(300)

    private var lastKeyframe: Instant?
    private var pendingSince: Instant?
    public private(set) var requestsAnswered = 0
    public private(set) var requestsCoalesced = 0

    public init() {}

    public mutating func request(at now: Instant) {
        if pendingSince == nil {
            pendingSince = now
        } else {
            requestsCoalesced += 1
        }
    }

    public var isPending: Bool { pendingSince != nil }

    /// Whether the frame encoded at `now` should be an IDR.
    public func shouldEncodeKeyframe(at now: Instant) -> Bool {
        guard pendingSince != nil else { return false }
        guard let lastKeyframe else { return true }
        return now - lastKeyframe >= KeyframeGate.minimumInterval
    }

    /// When a pending request may next be answered, for a still screen's encoder to wake.
    public func earliestKeyframe() -> Instant? {
        guard pendingSince != nil else { return nil }
        guard let lastKeyframe else { return .zero }
        return lastKeyframe + KeyframeGate.minimumInterval
    }

    /// The encoder made an IDR (asked for or not): pending requests are answered.
    public mutating func keyframeEncoded(at now: Instant) {
        if pendingSince != nil { requestsAnswered += 1 }
        pendingSince = nil
        lastKeyframe = now
    }
}
