/// What a datagram on an rtcp-mux socket holds, RFC 5761 §4.
public enum MuxedPacketKind: Equatable, Sendable {
    case rtp
    case rtcp

    /// RTCP packet types 192–223 fall where RTP's marker bit and payload
    /// type sit, and RTP payload types 64–95 are kept free for this reason.
    static let rtcpTypes: ClosedRange<UInt8> = 192...223
    static let minimumSize = 4
    /// RFC 5761 §4: with the marker bit set, RTP payload types 64–95 put 192–223 in the second byte,
    /// where RTCP's packet types sit, so a muxed socket would take such packets for RTCP.
    public static let rtcpCollidingPayloadTypes: ClosedRange<UInt8> = 64...95

    /// Whether `payloadType` may be sent: 0–127, outside the range that collides with RTCP.
    public static func isSendable(payloadType: Int) -> Bool {
        (0...127).contains(payloadType) && !rtcpCollidingPayloadTypes.contains(UInt8(truncatingIfNeeded: payloadType))
    }

    /// Nil when the bytes are too short or not version 2 (STUN, DTLS, noise).
    public static func classify(_ bytes: UnsafeRawBufferPointer) -> MuxedPacketKind? {
        guard bytes.count >= minimumSize, bytes[0] >> RTPHeader.versionShift == RTPHeader.version else { return nil }
        return rtcpTypes.contains(bytes[1]) ? .rtcp : .rtp
    }

    public static func classify(_ bytes: [UInt8]) -> MuxedPacketKind? {
        bytes.withUnsafeBytes { classify($0) }
    }
}
