import Encoding
import Encoders
import Media
import YUV
import ControlProtocol

/// One encoder generation: the codec instance and its picture buffers, used
/// only on the encode thread it was made for. A fresh encoder is a new one;
/// the stream it feeds (its transceiver) carries on.
///
/// Two pictures take turns, so the one the codec was given last is still
/// there to say which macroblocks of the next are unchanged (no copy).
final class FrameEncoder: @unchecked Sendable {
    // Safety: used only on its connection's encode thread.
    let generation: Int
    private let codec: ReceiverConfig.Codec
    private var encoder: VideoEncoder?
    private let converter = PixelConverter()
    private var picture = I420Picture(width: 16, height: 16)
    /// What the codec was given last; nil when there is none to compare with
    /// (a new codec instance has its own first frame).
    private var previous: I420Picture?
    private let unchanged = UnchangedMacroblocks()

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
        previous = nil
    }

    /// The generation is over: its codec instance and picture are freed now,
    /// not whenever the last reference goes.
    func close() {
        encoder = nil
        picture = I420Picture(width: 16, height: 16)
        previous = nil
    }

    /// Encodes `surface` as the picture at `timestamp`, handing it to
    /// `parts` as it is made; nil when the codec held it back.
    func encode(_ surface: Surface, timestamp: UInt32, keyframe: Bool, parts: EncodedParts) throws(CodecError) -> EncodedFrame? {
        guard let encoder else { return nil }
        converter.convert(surface, into: picture)
        guard encoder.takesUnchangedMacroblocks else {
            return try encoder.encode(picture, rtpTimestamp: timestamp, keyframe: keyframe, unchanged: nil, parts: parts)
        }
        if let previous { unchanged.compare(picture, with: previous) }
        let frame: EncodedFrame?
        do {
            frame = try encoder.encode(picture, rtpTimestamp: timestamp, keyframe: keyframe,
                                       unchanged: previous == nil ? nil : unchanged, parts: parts)
        } catch {
            // What the codec kept of a failed call is unknown: compare with nothing.
            previous = nil
            throw error
        }
        let given = picture
        picture = previous ?? I420Picture(width: given.width, height: given.height)
        previous = given
        return frame
    }
}
