/// Collects RTCP packets into one compound datagram (RFC 3550 §6.1).
///
/// The buffer keeps its capacity across `reset()`, so a sender that builds
/// a report every second reuses the same storage.
public struct RTCPCompoundBuilder: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// RFC 3550 §6.1 wants a compound to start with an SR or RR; RFC 5506
    /// allows feedback alone, so the order is the caller's.
    public mutating func add(_ packet: some RTCPMessage) throws(RTCPError) {
        try packet.marshal(into: &bytes)
    }

    public mutating func add(_ packet: RTCPPacket) throws(RTCPError) {
        try packet.marshal(into: &bytes)
    }

    public var isEmpty: Bool { bytes.isEmpty }

    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }
}
