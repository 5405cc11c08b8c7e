import Media

/// Measures a probe cluster from the feedback of its packets: the rate it
/// was received at, over the time its packets took to arrive, no more than
/// the rate it was sent at.
public struct ProbeResultEstimator: Sendable {
    /// A cluster's packets must mostly arrive to measure anything.
    static let minimumReceivedShare = 0.8
    /// Received this far under its send rate, the path is the limit; aim a
    /// little under what it carried so the probe's own queue drains.
    static let limitedShare = 0.9
    static let targetUtilization = 0.95
    /// Feedback for a cluster older than this will not come.
    static let timeout: Duration = .seconds(2)

    private struct Progress {
        var cluster: ProbeCluster
        var started: Instant
        var reported = 0
        var received: [(send: Instant, arrival: Duration, size: Int)] = []
    }

    private var pending: [Progress] = []

    public init() {}

    /// The sender started `cluster`.
    public mutating func expect(_ cluster: ProbeCluster, at now: Instant) {
        pending.removeAll { now - $0.started > Self.timeout }
        pending.append(Progress(cluster: cluster, started: now))
    }

    /// Takes a matched feedback entry; returns a cluster and its measured
    /// rate once all its packets have been reported on.
    public mutating func add(_ entry: SentPacketLog.Entry) -> (cluster: ProbeCluster, bitrate: Double)? {
        guard case .probe(let id) = entry.kind, let index = pending.firstIndex(where: { $0.cluster.id == id }) else {
            return nil
        }
        pending[index].reported += 1
        if let arrival = entry.arrival {
            pending[index].received.append((entry.sendTime, arrival, entry.size))
        }
        let progress = pending[index]
        guard progress.reported >= progress.cluster.packetCount else { return nil }
        pending.remove(at: index)
        return Self.measure(progress).map { (progress.cluster, $0) }
    }

    private static func measure(_ progress: Progress) -> Double? {
        let received = progress.received
        guard Double(received.count) >= minimumReceivedShare * Double(progress.cluster.packetCount),
              let firstSend = received.map(\.send).min(), let lastSend = received.map(\.send).max(),
              let firstArrival = received.map(\.arrival).min(), let lastArrival = received.map(\.arrival).max(),
              lastSend > firstSend, lastArrival > firstArrival else { return nil }
        let bytes = received.reduce(0) { $0 + $1.size }
        // The last packet sent ends the send interval; the first received starts the receive one.
        let sendRate = Double((bytes - received[received.count - 1].size) * 8) / (lastSend - firstSend).inSeconds
        let receiveRate = Double((bytes - received[0].size) * 8) / (lastArrival - firstArrival).inSeconds
        if receiveRate < limitedShare * sendRate { return targetUtilization * receiveRate }
        return min(sendRate, receiveRate)
    }
}
