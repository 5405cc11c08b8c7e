import Media

/// Groups acknowledged packets into the bursts they were sent in, and gives
/// the change in one-way delay from one group to the next: how much longer
/// the second group took to arrive after the first than it took to leave.
///
/// Single packets say little (the pacer and the NIC bunch them); a group's
/// last arrival against its last send time is what queueing moves.
public struct InterArrivalGrouping: Sendable {
    /// Packets sent within this of a group's first belong to it: about one
    /// pacer burst.
    public static let burstWindow: Duration = .milliseconds(5)

    /// The change between two consecutive groups.
    public struct Delta: Equatable, Sendable {
        public var sendDelta: Duration
        public var arrivalDelta: Duration
        /// The later group's last arrival, on the receiver's clock.
        public var arrival: Duration

        /// Positive when the path's queue grew between the groups.
        public var delayVariation: Duration { arrivalDelta - sendDelta }
    }

    private struct Group {
        var firstSend: Instant
        var lastSend: Instant
        var firstArrival: Duration
        var lastArrival: Duration
    }

    private var previous: Group?
    private var current: Group?

    public init() {}

    /// Adds a received packet, in sequence order; returns the delta when it
    /// closes a group.
    public mutating func add(sendTime: Instant, arrival: Duration) -> Delta? {
        guard var group = current else {
            current = Group(firstSend: sendTime, lastSend: sendTime, firstArrival: arrival, lastArrival: arrival)
            return nil
        }
        if sendTime < group.firstSend { return nil }
        if sendTime - group.firstSend <= Self.burstWindow || belongsToBurst(group, sendTime: sendTime, arrival: arrival) {
            group.lastSend = max(group.lastSend, sendTime)
            group.lastArrival = max(group.lastArrival, arrival)
            current = group
            return nil
        }
        var delta: Delta?
        if let previous {
            delta = Delta(
                sendDelta: group.lastSend - previous.lastSend, arrivalDelta: group.lastArrival - previous.lastArrival,
                arrival: group.lastArrival)
        }
        previous = group
        current = Group(firstSend: sendTime, lastSend: sendTime, firstArrival: arrival, lastArrival: arrival)
        return delta
    }

    /// Packets that left later but arrived together with the group (a link
    /// that delivers in bursts) are part of it, or they would read as the
    /// queue draining.
    private func belongsToBurst(_ group: Group, sendTime: Instant, arrival: Duration) -> Bool {
        let arrivalGap = arrival - group.lastArrival
        let propagation = arrivalGap - (sendTime - group.lastSend)
        return propagation < .zero && arrivalGap <= Self.burstWindow && arrival - group.firstArrival < .milliseconds(100)
    }
}
