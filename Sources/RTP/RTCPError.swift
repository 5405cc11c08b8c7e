/// Why bytes could not be read as RTCP, or an RTCP packet could not be written.
public enum RTCPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the header or the packet's own fields need.
    case tooShort(needed: Int, got: Int)
    /// The version field was not 2 (RFC 3550 §6.4.1).
    case unsupportedVersion(UInt8)
    /// The length field disagrees with the bytes present.
    case lengthMismatch(declared: Int, available: Int)
    /// The padding count is zero, not a multiple of 4, or longer than the packet.
    case invalidPadding(count: Int)
    /// The bytes hold a different packet type or feedback format than asked for.
    case wrongPacketType(expected: UInt8, got: UInt8)
    /// A REMB packet without the "REMB" identifier.
    case missingREMBIdentifier
    /// More entries than the 5-bit count field (or REMB's 8-bit one) can say.
    case tooManyItems(count: Int, limit: Int)
    /// A BYE reason longer than its 8-bit length field allows.
    case reasonTooLong(bytes: Int)
    /// Transport-wide feedback whose status chunks describe fewer packets
    /// than its packet status count claims.
    case statusCountExceedsChunks(claimed: Int, described: Int)
    /// Transport-wide feedback with the reserved two-bit status symbol 3.
    case reservedPacketStatus

    public var description: String {
        switch self {
        case let .tooShort(needed, got):
            return "RTCP packet too short: needs \(needed) bytes, has \(got); the packet was cut or is not RTCP"
        case let .unsupportedVersion(version):
            return "RTCP version \(version) is not supported, only version 2; the packet is probably not RTCP"
        case let .lengthMismatch(declared, available):
            return "RTCP length field says \(declared) bytes but \(available) are present; the packet is corrupt"
        case let .invalidPadding(count):
            return "RTCP padding count \(count) is invalid; the packet is corrupt"
        case let .wrongPacketType(expected, got):
            return "expected RTCP packet type/format \(expected), got \(got)"
        case .missingREMBIdentifier:
            return "application feedback without the \"REMB\" identifier is not a REMB packet"
        case let .tooManyItems(count, limit):
            return "\(count) entries do not fit one RTCP packet (at most \(limit)); split them over several packets"
        case let .reasonTooLong(bytes):
            return "BYE reason of \(bytes) bytes is longer than 255; shorten it"
        case let .statusCountExceedsChunks(claimed, described):
            return "transport feedback claims \(claimed) packet statuses but its chunks describe \(described); the packet is corrupt"
        case .reservedPacketStatus:
            return "transport feedback uses the reserved packet status 3; the packet is corrupt"
        }
    }
}
