/// A frame put back together from RTP payloads, ready for a decoder.
public struct DepacketizedFrame: Equatable, Sendable {
    /// H.264: Annex-B, `00 00 00 01` before each NAL unit. VP8: the frame as the encoder wrote it.
    public var data: [UInt8]
    /// The RTP timestamp shared by the frame's packets.
    public var timestamp: UInt32
    /// False when a packet of the frame was lost (a sequence gap, a missing
    /// FU-A fragment or VP8 partition start): the decoder should not be fed
    /// past it, and the receiver should ask for a keyframe (PLI).
    public var isComplete: Bool
    /// H.264: holds an IDR slice. VP8: a key frame.
    public var isKeyframe: Bool

    public init(data: [UInt8], timestamp: UInt32, isComplete: Bool, isKeyframe: Bool) {
        self.data = data
        self.timestamp = timestamp
        self.isComplete = isComplete
        self.isKeyframe = isKeyframe
    }
}
