import Media

/// Decides when to probe and how hard: right at the start (three and six
/// times the start rate, so a 1.5 Mbit/s path is found in well under a
/// second from 300 kbit/s), again at twice the result while results keep
/// reaching their targets, and when the sender leaves an application-limited
/// stretch or the cap is raised.
public struct ProbeController: Sendable {
    static let initialMultipliers = [3.0, 6.0]
    static let furtherMultiplier = 2.0
    /// A result this close to its target means the path was not the limit
    /// and may carry more still; a path-limited result comes out below it
    /// (see `ProbeResultEstimator`).
    static let furtherThreshold = 0.875
    /// Long enough to span several packets at the bottleneck, short enough
    /// that the queue it builds drains within a frame.
    static let clusterDuration: Duration = .milliseconds(30)
    /// Fewer packets than this measure the NIC more than the path.
    static let minimumPackets = 6
    /// A full media packet; a sender that probes with padding gives its own size.
    public static let defaultPacketSize = 1200

    let packetSize: Int

    private var queue: [ProbeCluster] = []
    private var nextID = 0
    /// The cluster whose result may start a further probe.
    private var leading: ProbeCluster?
    private var started = false

    public init(packetSize: Int = ProbeController.defaultPacketSize) {
        self.packetSize = max(packetSize, 1)
    }

    /// Queues the initial clusters, once, up to `cap`.
    public mutating func start(from bitrate: Double, cap: Double) {
        guard !started else { return }
        started = true
        for multiplier in Self.initialMultipliers {
            guard let cluster = enqueue(min(bitrate * multiplier, cap), above: bitrate, atStart: true) else { break }
            leading = cluster
        }
    }

    /// A cluster's result came in; probes further while results keep up.
    public mutating func resultMeasured(_ bitrate: Double, of cluster: ProbeCluster, cap: Double) {
        guard leading?.id == cluster.id else { return }
        leading = nil
        guard bitrate >= Self.furtherThreshold * cluster.bitrate, cluster.bitrate < cap else { return }
        leading = enqueue(min(Self.furtherMultiplier * bitrate, cap), above: bitrate, atStart: cluster.atStart)
    }

    /// The sender uses its estimate again, or may use more: check it.
    public mutating func recheck(estimate: Double, cap: Double) {
        guard queue.isEmpty, leading == nil else { return }
        leading = enqueue(min(Self.furtherMultiplier * estimate, cap), above: estimate)
    }

    /// The next cluster to send, taken off the queue.
    public mutating func next() -> ProbeCluster? {
        queue.isEmpty ? nil : queue.removeFirst()
    }

    public var hasPending: Bool { !queue.isEmpty }

    private mutating func enqueue(_ bitrate: Double, above estimate: Double, atStart: Bool = false) -> ProbeCluster? {
        guard bitrate > estimate else { return nil }
        let bytes = Int(bitrate * Self.clusterDuration.inSeconds / 8)
        let packets = max(Self.minimumPackets, (bytes + packetSize - 1) / packetSize)
        let cluster = ProbeCluster(id: nextID, bitrate: bitrate, packetCount: packets, bytes: packets * packetSize,
                                   atStart: atStart)
        nextID += 1
        queue.append(cluster)
        return cluster
    }
}
