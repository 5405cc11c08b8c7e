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

/// Hears a frame part by part while it is being encoded: whole NAL units (or
/// a whole VP8 frame) in decoding order, `endsFrame` on the last part,
/// `isKeyframe` on the parts of a keyframe. Called from the encoder's
/// threads, one call at a time; the bytes are valid during the call only.
public typealias EncodedParts = @Sendable (_ part: UnsafeRawBufferPointer, _ endsFrame: Bool, _ isKeyframe: Bool) -> Void
