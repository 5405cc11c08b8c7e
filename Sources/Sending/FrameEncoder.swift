import Encoding
import Encoders
import Media
import YUV
import ControlProtocol

/// One encoder generation: the codec instance and its picture buffer, used
/// only on the encode thread it was made for. A fresh encoder is a new one;
/// the stream it feeds (its transceiver) carries on.
final class FrameEncoder: @unchecked Sendable {
    // Safety: used only on its connection's encode thread.
    let generation: Int
    private let codec: ReceiverConfig.Codec
    private var encoder: VideoEncoder?
    private let converter = PixelConverter()
    private var picture = I420Picture(width: 16, height: 16)

    init(codec: ReceiverConfig.Codec, generation: Int) {
        self.codec = codec
        self.generation = generation
    }

    /// Makes sure an encoder with these settings is running: a new size or
    /// rate needs a new codec instance (new SPS in band, same stream); new
    /// bitrates alone are a live reconfiguration.
    func configure(_ wanted: EncoderSettings) throws(CodecError) {
        if let current = encoder?.settings {
            var sameShape = current
            sameShape.bitrate = wanted.bitrate
            sameShape.bufferBits = wanted.bufferBits
            // Only an encoder's start reads it.
            sameShape.initialBufferBits = wanted.initialBufferBits
            if sameShape == wanted {
                if current.bitrate != wanted.bitrate || current.bufferBits != wanted.bufferBits { try encoder?.setRate(wanted) }
                return
            }
        }
        encoder = nil
        encoder = try VideoEncoder(codec, settings: wanted)
        picture.resize(width: wanted.width, height: wanted.height)
    }

    /// The generation is over: its codec instance and picture are freed now,
    /// not whenever the last reference goes.
    func close() {
        encoder = nil
        picture = I420Picture(width: 16, height: 16)
    }

    /// Encodes `surface` as the picture at `timestamp`, handing it to
    /// `parts` as it is made; nil when the codec held it back.
    func encode(_ surface: Surface, timestamp: UInt32, keyframe: Bool, parts: EncodedParts) throws(CodecError) -> EncodedFrame? {
        guard let encoder else { return nil }
        converter.convert(surface, into: picture)
        return try encoder.encode(picture, rtpTimestamp: timestamp, keyframe: keyframe, parts: parts)
    }
}
