/// What the send thread needs to know about a queued packet, given by the
/// transceiver that numbered it, so nothing after it reads header bytes.
struct PacketInfo: Sendable {
    enum Kind: Equatable, Sendable {
        case media
        /// An answer to a NACK: the identical bytes sent before.
        case retransmission
        /// Padding only, part of probe cluster `cluster`.
        case probe(cluster: Int)
    }

    var sequence: UInt16
    var timestamp: UInt32
    /// The last packet of a frame.
    var marker: Bool
    /// Part of an IDR.
    var keyframe: Bool
    var kind: Kind

    static let empty = PacketInfo(sequence: 0, timestamp: 0, marker: false, keyframe: false, kind: .media)
}
