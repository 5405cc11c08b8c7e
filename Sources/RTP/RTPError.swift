/// Why bytes could not be read as an RTP packet or an RTP payload.
public enum RTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the fixed header, CSRC list, extension or padding claim.
    case tooShort(needed: Int, got: Int)
    /// The version field was not 2 (RFC 3550 §5.1).
    case unsupportedVersion(UInt8)
    /// The padding count is zero or longer than the packet.
    case invalidPadding(count: Int)
    /// The caller's buffer cannot hold what is to be written.
    case bufferTooSmall(needed: Int, capacity: Int)

    public var description: String {
        switch self {
        case let .tooShort(needed, got):
            return "RTP packet too short: needs \(needed) bytes, has \(got); the packet was cut or is not RTP"
        case let .unsupportedVersion(version):
            return "RTP version \(version) is not supported, only version 2; the packet is probably not RTP"
        case let .invalidPadding(count):
            return "RTP padding count \(count) does not fit in the packet; the packet is corrupt"
        case let .bufferTooSmall(needed, capacity):
            return "buffer of \(capacity) bytes cannot hold \(needed) bytes; give a larger buffer"
        }
    }
}
