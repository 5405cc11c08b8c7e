/// REMB, draft-alvestrand-rmcat-remb-03 §2.2: PSFB (206), FMT=15, the
/// receiver's estimate of the bitrate the path can carry.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source (0)                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   SSRC feedback                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// The bitrate is mantissa × 2^exp bits per second.
public struct ReceiverEstimatedMaximumBitrate: RTCPMessage {
    static let identifier: [UInt8] = Array("REMB".utf8)
    static let mantissaBits = 18
    static let mantissaMask: UInt32 = (1 << 18) - 1
    static let exponentMask: UInt8 = 0x3F
    static let maxSSRCs = 255

    public var senderSSRC: UInt32
    /// Bits per second. When written, precision beyond 18 significant bits is
    /// rounded down, so the estimate never grows on the wire.
    public var bitrate: UInt64
    public var ssrcs: [UInt32]

    public init(senderSSRC: UInt32, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    public var size: Int { FeedbackHeader.size + 8 + 4 * ssrcs.count }

    public var destinationSSRCs: [UInt32] { ssrcs }

    public func marshal(into out: inout [UInt8]) throws(RTCPError) {
        guard ssrcs.count <= Self.maxSSRCs else { throw .tooManyItems(count: ssrcs.count, limit: Self.maxSSRCs) }
        FeedbackHeader.marshal(
            format: FeedbackHeader.rembFormat, packetType: RTCPPacketType.payloadFeedback, packetSize: size,
            senderSSRC: senderSSRC, mediaSSRC: 0, into: &out)
        out.append(contentsOf: Self.identifier)
        var mantissa = bitrate
        var exponent: UInt32 = 0
        while mantissa > UInt64(Self.mantissaMask) {
            mantissa >>= 1
            exponent += 1
        }
        out.append(UInt8(ssrcs.count))
        out.appendUInt24(exponent << UInt32(Self.mantissaBits) | UInt32(mantissa))
        for ssrc in ssrcs { out.appendUInt32(ssrc) }
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> ReceiverEstimatedMaximumBitrate {
        let (sender, _, fci) = try FeedbackHeader.parse(
            bytes, packetType: RTCPPacketType.payloadFeedback, format: FeedbackHeader.rembFormat)
        guard fci.count >= 8 else { throw .tooShort(needed: FeedbackHeader.size + 8, got: bytes.count) }
        guard fci[0..<4].elementsEqual(identifier) else { throw .missingREMBIdentifier }
        let count = Int(fci[4])
        let field = fci.uint24(at: 5)
        let exponent = UInt64(field >> UInt32(mantissaBits)) & UInt64(exponentMask)
        let mantissa = UInt64(field & mantissaMask)
        let needed = 8 + 4 * count
        guard fci.count >= needed else { throw .tooShort(needed: FeedbackHeader.size + needed, got: bytes.count) }
        // Exponents past 45 would overflow 64 bits; such estimates mean "no limit".
        let bitrate = exponent > 45 ? UInt64.max : mantissa << exponent
        let ssrcs = (0..<count).map { fci.uint32(at: 8 + 4 * $0) }
        return ReceiverEstimatedMaximumBitrate(senderSSRC: sender, bitrate: bitrate, ssrcs: ssrcs)
    }
}
