import Media

/// One encoded picture. `bytes` belongs to the encoder and stays valid only
/// until its next call: packetize it before encoding again.
public struct EncodedFrame {
    public let bytes: UnsafeRawBufferPointer
    public let isKeyframe: Bool
    /// 90 kHz RTP time derived from the capture time.
    public let rtpTimestamp: UInt32
    public let width: Int
    public let height: Int
}
