/// An RTP packet read from the wire: its header and where the payload lies.
public struct RTPPacket: Equatable, Sendable {
    public var header: RTPHeader
    /// The payload's byte range in the parsed buffer, padding excluded.
    public var payloadRange: Range<Int>

    public init(header: RTPHeader, payloadRange: Range<Int>) {
        self.header = header
        self.payloadRange = payloadRange
    }

    /// Reads the header, skips any header extension (RFC 3550 §5.3.1) and
    /// strips padding (§5.1: the last octet counts the padding octets).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTPError) -> RTPPacket {
        guard bytes.count >= RTPHeader.fixedSize else {
            throw .tooShort(needed: RTPHeader.fixedSize, got: bytes.count)
        }
        let first = bytes[0]
        let version = first >> RTPHeader.versionShift
        guard version == RTPHeader.version else { throw .unsupportedVersion(version) }
        let csrcCount = Int(first & RTPHeader.csrcCountMask)
        var offset = RTPHeader.fixedSize + 4 * csrcCount
        guard bytes.count >= offset else { throw .tooShort(needed: offset, got: bytes.count) }
        var csrcs: [UInt32] = []
        csrcs.reserveCapacity(csrcCount)
        for index in 0..<csrcCount { csrcs.append(bytes.uint32(at: RTPHeader.fixedSize + 4 * index)) }

        let hasExtension = first & RTPHeader.extensionBit != 0
        if hasExtension {
            let extensionStart = offset + RTPHeader.extensionHeaderSize
            guard bytes.count >= extensionStart else {
                throw .tooShort(needed: extensionStart, got: bytes.count)
            }
            let words = Int(bytes.uint16(at: offset + 2))
            offset = extensionStart + 4 * words
            guard bytes.count >= offset else { throw .tooShort(needed: offset, got: bytes.count) }
        }

        var end = bytes.count
        let padding = first & RTPHeader.paddingBit != 0
        if padding {
            let count = Int(bytes[bytes.count - 1])
            guard count > 0, count <= end - offset else { throw .invalidPadding(count: count) }
            end -= count
        }

        var header = RTPHeader(
            padding: padding,
            marker: bytes[1] & RTPHeader.markerBit != 0,
            payloadType: bytes[1] & RTPHeader.payloadTypeMask,
            sequenceNumber: bytes.uint16(at: 2),
            timestamp: bytes.uint32(at: 4),
            ssrc: bytes.uint32(at: 8),
            csrcs: csrcs)
        header.hasExtension = hasExtension
        return RTPPacket(header: header, payloadRange: offset..<end)
    }

    public static func parse(_ bytes: [UInt8]) throws(RTPError) -> RTPPacket {
        try bytes.withUnsafeBytes { raw in Result { () throws(RTPError) in try parse(raw) } }.get()
    }

    /// Appends the header followed by `payload`; padding is not written.
    public static func marshal(header: RTPHeader, payload: some Collection<UInt8>, into out: inout [UInt8]) {
        var plain = header
        plain.padding = false
        plain.marshal(into: &out)
        out.append(contentsOf: payload)
    }
}
