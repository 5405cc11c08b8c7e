/// What the send thread needs to know about a queued packet, given by the
/// transceiver that numbered it, so nothing after it reads header bytes.
struct PacketInfo: Sendable {
    /// The stream it was numbered on: a sender report counts only its own SSRC's packets.
    var ssrc: UInt32
    var sequence: UInt16
    var timestamp: UInt32
    /// The last packet of a frame.
    var marker: Bool
    /// An answer to a NACK: the identical bytes sent before.
    var retransmission: Bool
    /// Payload bytes, header and extensions excluded (RFC 3550 §6.4.1's octet count).
    var payloadLength: Int
    /// Part of a keyframe, which the pacer always spreads (docs/behaviour.md §7.5).
    var keyframe = false
}
