/// The common part of RTCP feedback messages, RFC 4585 §6.1.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|   FMT   |       PT      |          length               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// :            Feedback Control Information (FCI)                 :
/// ```
enum FeedbackHeader {
    static let size = RTCPHeader.size + 8

    static let pliFormat: UInt8 = 1
    static let firFormat: UInt8 = 4
    static let rembFormat: UInt8 = 15
    static let nackFormat: UInt8 = 1
    static let transportCCFormat: UInt8 = 15

    static func parse(
        _ bytes: UnsafeRawBufferPointer, packetType: UInt8, format: UInt8
    ) throws(RTCPError) -> (senderSSRC: UInt32, mediaSSRC: UInt32, fci: UnsafeRawBufferPointer) {
        let (_, body) = try RTCPHeader.parseBody(bytes, packetType: packetType, format: format)
        guard body.count >= 8 else { throw .tooShort(needed: size, got: bytes.count) }
        return (body.uint32(at: 0), body.uint32(at: 4), UnsafeRawBufferPointer(rebasing: body[8...]))
    }

    static func marshal(
        format: UInt8, packetType: UInt8, packetSize: Int, senderSSRC: UInt32, mediaSSRC: UInt32,
        into out: inout [UInt8]
    ) {
        RTCPHeader.marshal(count: format, packetType: packetType, packetSize: packetSize, into: &out)
        out.appendUInt32(senderSSRC)
        out.appendUInt32(mediaSSRC)
    }
}
