/// The header every RTCP packet starts with, RFC 3550 §6.4.1.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  RC/FMT |       PT      |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// `length` is the packet's size in 32-bit words minus one, padding included.
struct RTCPHeader {
    static let size = 4
    static let version: UInt8 = 2
    static let versionShift: UInt8 = 6
    static let paddingBit: UInt8 = 0x20
    static let countMask: UInt8 = 0x1F
    static let maxCount = 31

    var padding: Bool
    /// Reception report count, source count, or feedback message type (FMT).
    var count: UInt8
    var packetType: UInt8
    /// Whole packet size in bytes, from the length field.
    var packetSize: Int

    /// Reads the header and checks it against `available` bytes.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> RTCPHeader {
        guard bytes.count >= size else { throw .tooShort(needed: size, got: bytes.count) }
        let version = bytes[0] >> versionShift
        guard version == Self.version else { throw .unsupportedVersion(version) }
        let packetSize = (Int(bytes.uint16(at: 2)) + 1) * 4
        guard packetSize <= bytes.count else { throw .lengthMismatch(declared: packetSize, available: bytes.count) }
        return RTCPHeader(
            padding: bytes[0] & paddingBit != 0, count: bytes[0] & countMask,
            packetType: bytes[1], packetSize: packetSize)
    }

    /// Parses the header of a single packet of `packetType` that must fill
    /// `bytes` exactly, and returns the body with padding removed.
    static func parseBody(
        _ bytes: UnsafeRawBufferPointer, packetType: UInt8, format: UInt8? = nil
    ) throws(RTCPError) -> (header: RTCPHeader, body: UnsafeRawBufferPointer) {
        let header = try parse(bytes)
        guard header.packetType == packetType else { throw .wrongPacketType(expected: packetType, got: header.packetType) }
        if let format, header.count != format { throw .wrongPacketType(expected: format, got: header.count) }
        guard header.packetSize == bytes.count else {
            throw .lengthMismatch(declared: header.packetSize, available: bytes.count)
        }
        var end = bytes.count
        if header.padding {
            let count = Int(bytes[end - 1])
            guard count > 0, count % 4 == 0, count <= end - size else { throw .invalidPadding(count: count) }
            end -= count
        }
        return (header, UnsafeRawBufferPointer(rebasing: bytes[size..<end]))
    }

    /// Appends a header for a packet of `packetSize` bytes (a multiple of 4).
    static func marshal(count: UInt8, packetType: UInt8, packetSize: Int, into out: inout [UInt8]) {
        out.append(version << versionShift | count & countMask)
        out.append(packetType)
        out.appendUInt16(UInt16(packetSize / 4 - 1))
    }
}

/// RTCP packet type numbers (IANA "RTP Control Protocol packet types").
public enum RTCPPacketType {
    public static let senderReport: UInt8 = 200
    public static let receiverReport: UInt8 = 201
    public static let sourceDescription: UInt8 = 202
    public static let goodbye: UInt8 = 203
    /// Transport-layer feedback, RFC 4585 §6.2.
    public static let transportFeedback: UInt8 = 205
    /// Payload-specific feedback, RFC 4585 §6.3.
    public static let payloadFeedback: UInt8 = 206
}
