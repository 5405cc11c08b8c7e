import Media

/// Loss from NACKs: a receiver that asks again for 5 % of what was sent is
/// losing 5 %, whether or not it sends receiver reports (a receiver under
/// heavy loss may send none for many seconds).
///
/// Each sequence number counts once however often it is asked for;
/// keyframe requests add nothing, since they follow loss already counted.
public struct NackLossMeter: Sendable {
    /// Several round trips, so a NACK that comes a round trip after its
    /// loss still falls in the window of the packets it is about.
    public static let window: Duration = .seconds(1)
    /// Fewer packets sent than this in the window say too little.
    static let minimumPackets = 20
    /// A number asked for again within this is the same loss; after it the
    /// 16-bit sequence may have come round.
    static let memory: Duration = .seconds(10)
    /// Bounds what a receiver can make the meter remember.
    static let maxRemembered = 4096

    private var sent = 0
    private var nacked = 0
    /// Whether the receiver has ever NACKed: only then is a window without
    /// NACKs a window without loss.
    public private(set) var receiverNacks = false
    private var windowStart: Instant?
    private var remembered: Set<UInt16> = []
    private var order: [(sequenceNumber: UInt16, at: Instant)] = []

    public init() {}

    public mutating func recordSent(at now: Instant) {
        if windowStart == nil { windowStart = now }
        sent += 1
    }

    /// Records the numbers one NACK asks for; returns how many were new.
    @discardableResult
    public mutating func recordNack(_ sequenceNumbers: [UInt16], at now: Instant) -> Int {
        forget(before: now - Self.memory)
        receiverNacks = true
        var fresh = 0
        for number in sequenceNumbers where !remembered.contains(number) {
            remembered.insert(number)
            order.append((number, now))
            fresh += 1
        }
        if order.count > Self.maxRemembered {
            for old in order.prefix(order.count - Self.maxRemembered) { remembered.remove(old.sequenceNumber) }
            order.removeFirst(order.count - Self.maxRemembered)
        }
        nacked += fresh
        return fresh
    }

    private mutating func forget(before time: Instant) {
        let stale = order.prefix { $0.at < time }
        for old in stale { remembered.remove(old.sequenceNumber) }
        order.removeFirst(stale.count)
    }

    /// Lost over sent since the last ratio taken, once a window has passed
    /// and enough was sent; then counting starts again. Windows do not
    /// overlap, so a back-off is never judged on loss from before it.
    public mutating func takeLossRatio(at now: Instant) -> Double? {
        guard let start = windowStart, now - start >= Self.window, sent >= Self.minimumPackets else { return nil }
        defer {
            sent = 0
            nacked = 0
            windowStart = now
        }
        return min(1, Double(nacked) / Double(sent))
    }
}
