/// The last packets sent, by sequence number, to answer generic NACKs.
///
/// It stores plain RTP, not SRTP: a retransmission goes through
/// `SRTPSession.protectRTP` again, which libsrtp allows for a repeated
/// sequence number on a sender session. Slots are allocated once at full
/// packet size, so storing a packet never allocates.
public struct PacketHistory: Sendable {
    /// At 2.5 Mbit/s of 1200-byte packets, 1024 packets is about 4 s; at
    /// 8 Mbit/s about 1.2 s — enough for a NACK round trip in both cases.
    public static let defaultCapacity = 1024
    /// Header plus the largest payload plus room for CSRCs.
    public static let defaultMaxPacketSize = 1500

    private struct Slot: Sendable {
        var bytes: [UInt8]
        var length = 0
        var sequenceNumber: UInt16 = 0
        var occupied = false
    }

    public let maxPacketSize: Int
    private var slots: [Slot]

    public init(capacity: Int = PacketHistory.defaultCapacity, maxPacketSize: Int = PacketHistory.defaultMaxPacketSize) {
        precondition(capacity > 0 && capacity <= Int(UInt16.max) + 1, "history capacity must be 1…65536")
        self.maxPacketSize = maxPacketSize
        slots = (0..<capacity).map { _ in Slot(bytes: [UInt8](repeating: 0, count: maxPacketSize)) }
    }

    public var capacity: Int { slots.count }

    /// Keeps a copy of `packet`, replacing the one `capacity` sequence numbers
    /// older. Packets larger than `maxPacketSize` are not kept (returns false).
    @discardableResult
    public mutating func store(_ packet: UnsafeRawBufferPointer, sequenceNumber: UInt16) -> Bool {
        guard packet.count <= maxPacketSize else { return false }
        let index = Int(sequenceNumber) % slots.count
        slots[index].bytes.withUnsafeMutableBytes { $0.copyMemory(from: packet) }
        slots[index].length = packet.count
        slots[index].sequenceNumber = sequenceNumber
        slots[index].occupied = true
        return true
    }

    @discardableResult
    public mutating func store(_ packet: [UInt8], sequenceNumber: UInt16) -> Bool {
        packet.withUnsafeBytes { store($0, sequenceNumber: sequenceNumber) }
    }

    /// Calls `body` with the stored packet, or returns nil when it was never
    /// stored or has been overwritten.
    public func withPacket<Result>(
        sequenceNumber: UInt16, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result? {
        let slot = slots[Int(sequenceNumber) % slots.count]
        guard slot.occupied, slot.sequenceNumber == sequenceNumber else { return nil }
        return try slot.bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<slot.length])) }
    }

    /// Forgets every packet (a new SSRC's numbers start again).
    public mutating func clear() {
        for i in slots.indices { slots[i].occupied = false }
    }

    /// A copy of the stored packet, for callers off the hot path.
    public func packet(sequenceNumber: UInt16) -> [UInt8]? {
        withPacket(sequenceNumber: sequenceNumber) { Array($0) }
    }
}
