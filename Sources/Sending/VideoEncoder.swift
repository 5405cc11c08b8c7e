import Encoders
import Encoding
import YUV
import ControlProtocol
import Media

/// The encoder a receiver's codec asks for: x264 for H.264, libvpx for VP8.
enum VideoEncoder {
    case h264(H264Encoder)
    case vp8(VP8Encoder)

    init(_ codec: ReceiverConfig.Codec, settings: EncoderSettings) throws(CodecError) {
        switch codec {
        case .h264: self = .h264(try H264Encoder(settings: settings))
        case .vp8: self = .vp8(try VP8Encoder(settings: settings))
        }
    }

    var settings: EncoderSettings {
        switch self {
        case .h264(let e): e.settings
        case .vp8(let e): e.settings
        }
    }

    func setRate(_ wanted: EncoderSettings) throws(CodecError) {
        switch self {
        case .h264(let e): try e.setRate(wanted)
        case .vp8(let e): try e.setRate(wanted)
        }
    }

    /// Whether `encode` reads which macroblocks are unchanged: x264 skips
    /// them; libvpx has no way to be told.
    var takesUnchangedMacroblocks: Bool {
        if case .h264 = self { return true }
        return false
    }

    /// Encodes `picture`, handing it to `parts` as it is made: slice by slice
    /// for H.264, whole for VP8.
    func encode(_ picture: I420Picture, rtpTimestamp: UInt32, keyframe: Bool, unchanged: UnchangedMacroblocks?,
                parts: EncodedParts) throws(CodecError) -> EncodedFrame? {
        switch self {
        case .h264(let e):
            return try e.encode(picture, rtpTimestamp: rtpTimestamp, pts: Int64(rtpTimestamp), keyframe: keyframe,
                                unchanged: unchanged, parts: parts)
        case .vp8(let e):
            let frame = try e.encode(picture, rtpTimestamp: rtpTimestamp, keyframe: keyframe)
            if let frame { parts(frame.bytes, true, frame.isKeyframe) }
            return frame
        }
    }
}
