/// What the send thread needs to know about a queued packet, given by the
/// transceiver that numbered it, so nothing after it reads header bytes.
struct PacketInfo: Sendable {
    enum Kind: Equatable, Sendable {
        case media
        /// An answer to a NACK: the identical bytes sent before.
        case retransmission
        /// An answer to a NACK on the RTX stream (RFC 4588): a packet of its
        /// own, stamped afresh, never kept for NACKs of the media stream.
        case rtx
        /// Padding only, part of probe cluster `cluster`.
        case probe(cluster: Int)
        /// Padding only, so a receiver that waits for the next number by the clock does not give it up.
        case keepalive
    }

    /// The stream it was numbered on: a sender report counts only its own SSRC's packets.
    var ssrc: UInt32
    var sequence: UInt16
    var timestamp: UInt32
    /// The last packet of a frame.
    var marker: Bool
    /// Part of a keyframe, which the pacer always spreads (docs/behaviour.md §7.5).
    var keyframe: Bool
    var kind: Kind
    /// Payload bytes, header and extensions excluded (RFC 3550 §6.4.1's octet count).
    var payloadLength: Int

    static let empty = PacketInfo(ssrc: 0, sequence: 0, timestamp: 0, marker: false, keyframe: false, kind: .media, payloadLength: 0)
}
