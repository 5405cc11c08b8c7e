/// BYE, RFC 3550 §6.6: the sources are leaving.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|    SC   |   PT=BYE=203  |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           SSRC/CSRC                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :                              ...                              :
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |     length    |               reason for leaving            ... (opt)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct Goodbye: RTCPMessage {
    static let maxReasonLength = 255

    public var sources: [UInt32]
    /// UTF-8, empty for none.
    public var reason: String

    public init(sources: [UInt32], reason: String = "") {
        self.sources = sources
        self.reason = reason
    }

    public var size: Int {
        let reasonLength = reason.utf8.count
        let reasonSize = reasonLength == 0 ? 0 : (1 + reasonLength + 3) / 4 * 4
        return RTCPHeader.size + 4 * sources.count + reasonSize
    }

    public var destinationSSRCs: [UInt32] { sources }

    public func marshal(into out: inout [UInt8]) throws(RTCPError) {
        guard sources.count <= RTCPHeader.maxCount else {
            throw .tooManyItems(count: sources.count, limit: RTCPHeader.maxCount)
        }
        let reasonBytes = Array(reason.utf8)
        guard reasonBytes.count <= Self.maxReasonLength else { throw .reasonTooLong(bytes: reasonBytes.count) }
        let start = out.count
        RTCPHeader.marshal(count: UInt8(sources.count), packetType: RTCPPacketType.goodbye, packetSize: size, into: &out)
        for source in sources { out.appendUInt32(source) }
        if !reasonBytes.isEmpty {
            out.append(UInt8(reasonBytes.count))
            out.append(contentsOf: reasonBytes)
            // The reason is zero-filled to a 32-bit boundary, not RTCP-padded.
            while (out.count - start) % 4 != 0 { out.append(0) }
        }
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> Goodbye {
        let (header, body) = try RTCPHeader.parseBody(bytes, packetType: RTCPPacketType.goodbye)
        let count = Int(header.count)
        guard body.count >= 4 * count else { throw .tooShort(needed: RTCPHeader.size + 4 * count, got: bytes.count) }
        let sources = (0..<count).map { body.uint32(at: 4 * $0) }
        var reason = ""
        let reasonOffset = 4 * count
        if body.count > reasonOffset {
            let length = Int(body[reasonOffset])
            guard body.count >= reasonOffset + 1 + length else {
                throw .tooShort(needed: RTCPHeader.size + reasonOffset + 1 + length, got: bytes.count)
            }
            reason = String(decoding: body[(reasonOffset + 1)..<(reasonOffset + 1 + length)], as: UTF8.self)
        }
        return Goodbye(sources: sources, reason: reason)
    }
}
