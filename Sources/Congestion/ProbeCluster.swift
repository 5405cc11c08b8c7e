/// A short burst the sender puts out at a set rate, above the estimate, to
/// learn from its feedback whether the path carries more.
public struct ProbeCluster: Equatable, Sendable {
    public var id: Int
    /// The rate to send the cluster at, bits per second.
    public var bitrate: Double
    public var packetCount: Int
    public var bytes: Int
    /// One of the clusters that find the path from the start rate, or followed
    /// on from one: nothing has been sent yet that could bound its result.
    public var atStart: Bool

    public init(id: Int, bitrate: Double, packetCount: Int, bytes: Int, atStart: Bool = false) {
        self.id = id
        self.bitrate = bitrate
        self.packetCount = packetCount
        self.bytes = bytes
        self.atStart = atStart
    }

    /// The size of each of the cluster's packets.
    public var packetSize: Int { bytes / max(packetCount, 1) }
}
