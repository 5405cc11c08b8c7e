/// Picture Loss Indication, RFC 4585 §6.3.1: PSFB (206) with FMT=1 and no
/// FCI. The receiver lost part of a picture and asks for a keyframe.
public struct PictureLossIndication: RTCPMessage {
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public var size: Int { FeedbackHeader.size }

    public var destinationSSRCs: [UInt32] { [mediaSSRC] }

    public func marshal(into out: inout [UInt8]) throws(RTCPError) {
        FeedbackHeader.marshal(
            format: FeedbackHeader.pliFormat, packetType: RTCPPacketType.payloadFeedback, packetSize: size,
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, into: &out)
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> PictureLossIndication {
        let (sender, media, _) = try FeedbackHeader.parse(
            bytes, packetType: RTCPPacketType.payloadFeedback, format: FeedbackHeader.pliFormat)
        return PictureLossIndication(senderSSRC: sender, mediaSSRC: media)
    }
}
