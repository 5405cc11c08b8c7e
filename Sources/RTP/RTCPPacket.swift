/// Any RTCP packet the sender or receiver understands.
public enum RTCPPacket: Equatable, Sendable {
    case senderReport(SenderReport)
    case receiverReport(ReceiverReport)
    case pictureLossIndication(PictureLossIndication)
    case fullIntraRequest(FullIntraRequest)
    case genericNACK(GenericNACK)
    case transportFeedback(TransportFeedback)
    case receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate)
    case goodbye(Goodbye)
    /// A well-formed packet of a type not handled here (SDES, XR, APP,
    /// …), kept so callers can count or log it.
    case unknown(packetType: UInt8, format: UInt8)

    /// Splits a compound packet (RFC 3550 §6.1) and reads each part. One
    /// malformed part fails the whole compound: its lengths cannot be trusted.
    public static func parseCompound(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> [RTCPPacket] {
        guard !bytes.isEmpty else { throw .tooShort(needed: RTCPHeader.size, got: 0) }
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let header = try RTCPHeader.parse(rest)
            let packet = UnsafeRawBufferPointer(rebasing: rest[0..<header.packetSize])
            packets.append(try parseOne(packet, header: header))
            offset += header.packetSize
        }
        return packets
    }

    public static func parseCompound(_ bytes: [UInt8]) throws(RTCPError) -> [RTCPPacket] {
        try bytes.withUnsafeBytes { raw in Result { () throws(RTCPError) in try parseCompound(raw) } }.get()
    }

    private static func parseOne(_ bytes: UnsafeRawBufferPointer, header: RTCPHeader) throws(RTCPError) -> RTCPPacket {
        switch (header.packetType, header.count) {
        case (RTCPPacketType.senderReport, _):
            return .senderReport(try .parse(bytes))
        case (RTCPPacketType.receiverReport, _):
            return .receiverReport(try .parse(bytes))
        case (RTCPPacketType.goodbye, _):
            return .goodbye(try .parse(bytes))
        case (RTCPPacketType.payloadFeedback, FeedbackHeader.pliFormat):
            return .pictureLossIndication(try .parse(bytes))
        case (RTCPPacketType.payloadFeedback, FeedbackHeader.firFormat):
            return .fullIntraRequest(try .parse(bytes))
        case (RTCPPacketType.payloadFeedback, FeedbackHeader.rembFormat):
            // FMT=15 is any application-layer feedback; only REMB is read.
            do {
                return .receiverEstimatedMaximumBitrate(try .parse(bytes))
            } catch .missingREMBIdentifier {
                return .unknown(packetType: header.packetType, format: header.count)
            }
        case (RTCPPacketType.transportFeedback, FeedbackHeader.nackFormat):
            return .genericNACK(try .parse(bytes))
        case (RTCPPacketType.transportFeedback, FeedbackHeader.transportCCFormat):
            return .transportFeedback(try .parse(bytes))
        default:
            return .unknown(packetType: header.packetType, format: header.count)
        }
    }

    /// The packet as an `RTCPMessage`, nil for `.unknown`.
    public var message: (any RTCPMessage)? {
        switch self {
        case let .senderReport(packet): packet
        case let .receiverReport(packet): packet
        case let .pictureLossIndication(packet): packet
        case let .fullIntraRequest(packet): packet
        case let .genericNACK(packet): packet
        case let .transportFeedback(packet): packet
        case let .receiverEstimatedMaximumBitrate(packet): packet
        case let .goodbye(packet): packet
        case .unknown: nil
        }
    }

    public var destinationSSRCs: [UInt32] { message?.destinationSSRCs ?? [] }

    /// Appends the packet; an `.unknown` one has no bytes to write.
    public func marshal(into out: inout [UInt8]) throws(RTCPError) {
        try message?.marshal(into: &out)
    }

    public var size: Int { message?.size ?? 0 }
}
