import Media

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
        /// The transport-wide number it carries, if it was stamped with one.
        var transportSequenceNumber: UInt16?
        /// When it first left, and when it last left (first or resent).
        var firstSent = Instant.zero
        var lastSent = Instant.zero
    }

    /// What a NACK for one number finds.
    public enum Fate: Equatable, Sendable {
        /// Never sent, or overwritten: nothing to resend, and nothing known lost.
        case unknown
        /// It may still be on its way, so it is neither resent nor counted as
        /// lost: no later packet can have reached the receiver yet (one that
        /// asks for the packet it expects next, as rtpbin does while a
        /// keyframe is paced out, is guessing), or it was resent less than a
        /// round trip ago.
        case inFlight
        /// Left long enough ago to be lost.
        case overdue
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
    public mutating func store(
        _ packet: UnsafeRawBufferPointer, sequenceNumber: UInt16, at time: Instant = .zero,
        transportSequenceNumber: UInt16? = nil
    ) -> Bool {
        guard packet.count <= maxPacketSize else { return false }
        let index = Int(sequenceNumber) % slots.count
        slots[index].bytes.withUnsafeMutableBytes { $0.copyMemory(from: packet) }
        slots[index].length = packet.count
        slots[index].sequenceNumber = sequenceNumber
        slots[index].firstSent = time
        slots[index].lastSent = time
        slots[index].occupied = true
        slots[index].transportSequenceNumber = transportSequenceNumber
        return true
    }

    @discardableResult
    public mutating func store(
        _ packet: [UInt8], sequenceNumber: UInt16, at time: Instant = .zero, transportSequenceNumber: UInt16? = nil
    ) -> Bool {
        packet.withUnsafeBytes {
            store($0, sequenceNumber: sequenceNumber, at: time, transportSequenceNumber: transportSequenceNumber)
        }
    }

    /// What became of the packet a NACK asks for. A receiver knows a packet
    /// is missing once a later one has arrived, so the next number must have
    /// left a round trip before the NACK came, less `tolerance` (the caller's
    /// allowance for jitter); and a packet resent less than a round trip ago
    /// is not resent again (libwebrtc's rule).
    public func fate(of sequenceNumber: UInt16, at now: Instant, roundTrip: Duration, tolerance: Duration = .zero) -> Fate {
        guard let slot = kept(sequenceNumber) else { return .unknown }
        guard let followed = followed(sequenceNumber, at: now), followed >= roundTrip - tolerance else { return .inFlight }
        return slot.lastSent > slot.firstSent && now - slot.lastSent < roundTrip ? .inFlight : .overdue
    }

    /// How long ago the packet after `sequenceNumber` first left: a NACK for
    /// a loss comes once that one has arrived, so beyond a round trip this is
    /// how long it waited on the way (in a bottleneck's queue); nil if it has not left.
    public func followed(_ sequenceNumber: UInt16, at now: Instant) -> Duration? {
        age(of: sequenceNumber &+ 1, at: now)
    }

    /// The transport-wide number the packet was first sent with, if it is kept and had one.
    public func transportSequenceNumber(of sequenceNumber: UInt16) -> UInt16? {
        kept(sequenceNumber)?.transportSequenceNumber
    }

    /// The stored bytes, to be resent now; a repeated NACK within the round trip then finds it in flight.
    public mutating func takeForResend(sequenceNumber: UInt16, at now: Instant) -> [UInt8]? {
        guard let index = keptIndex(sequenceNumber) else { return nil }
        slots[index].lastSent = now
        return Array(slots[index].bytes[0..<slots[index].length])
    }

    /// How long ago the packet numbered `sequenceNumber` was first sent, if it is still kept.
    public func age(of sequenceNumber: UInt16, at now: Instant) -> Duration? {
        kept(sequenceNumber).map { now - $0.firstSent }
    }

    /// Where the packet numbered `sequenceNumber` is kept, if it still is (a later one may have taken its slot).
    private func keptIndex(_ sequenceNumber: UInt16) -> Int? {
        let index = Int(sequenceNumber) % slots.count
        return slots[index].occupied && slots[index].sequenceNumber == sequenceNumber ? index : nil
    }

    private func kept(_ sequenceNumber: UInt16) -> Slot? {
        keptIndex(sequenceNumber).map { slots[$0] }
    }

    /// Forgets every packet (a new SSRC's numbers start again).
    public mutating func clear() {
        for i in slots.indices { slots[i].occupied = false }
    }
}
