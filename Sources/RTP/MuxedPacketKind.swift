/// What a datagram on an rtcp-mux socket holds, RFC 5761 §4.
public enum MuxedPacketKind: Equatable, Sendable {
    case rtp
    case rtcp

    /// RTCP packet types 192–223 fall where RTP's marker bit and payload
    /// type sit, and RTP payload types 64–95 are kept free for this reason.
    static let rtcpTypes: ClosedRange<UInt8> = 192...223
    static let minimumSize = 4

    /// Nil when the bytes are too short or not version 2 (STUN, DTLS, noise).
    public static func classify(_ bytes: UnsafeRawBufferPointer) -> MuxedPacketKind? {
        guard bytes.count >= minimumSize, bytes[0] >> RTPHeader.versionShift == RTPHeader.version else { return nil }
        return rtcpTypes.contains(bytes[1]) ? .rtcp : .rtp
    }

    public static func classify(_ bytes: [UInt8]) -> MuxedPacketKind? {
        bytes.withUnsafeBytes { classify($0) }
    }
}
