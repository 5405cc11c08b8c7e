import Media

/// The one limit every receiver's stall ladder shares: a share-again (everyone's
/// screen shared again from the same capture) at most once every five minutes.
///
/// A share-again interrupts every receiver, so it is spent for the share, not
/// per person: two receivers stalling at once get one share-again between them.
/// The I/O layer keeps one per share and lends it to each ladder's `tick`.
public struct ShareAgainBudget: Equatable, Sendable {
    /// docs/behaviour.md §5.3: at most once every five minutes, so a receiver that keeps
    /// stalling cannot keep interrupting everyone else's view.
    public static let minimumSpacing: Duration = .seconds(300)

    /// When everyone's screen was last shared again.
    public private(set) var lastAt: Instant?
    /// Whose stall asked for it.
    public private(set) var lastReceiver: String?

    public init() {}

    /// Whether a share-again may happen at `now`; if not, says until when it may not.
    public func blockedUntil(now: Instant) -> Instant? {
        guard let lastAt else { return nil }
        let next = lastAt + Self.minimumSpacing
        return now < next ? next : nil
    }

    /// Records that everyone's screen is shared again at `now`, asked for by `receiver`.
    public mutating func spend(now: Instant, for receiver: String) {
        lastAt = now
        lastReceiver = receiver
    }
}
