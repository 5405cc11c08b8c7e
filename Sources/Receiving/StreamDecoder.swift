import Decoders
import Media

/// libavcodec for H.264, libvpx for VP8.
enum StreamDecoder {
    case h264(H264Decoder)
    case vp8(VP8Decoder)

    init(_ codec: ReceivedCodec) throws(CodecError) {
        switch codec {
        case .h264: self = .h264(try H264Decoder())
        case .vp8: self = .vp8(try VP8Decoder())
        }
    }

    func decode(_ frame: UnsafeRawBufferPointer) -> DecodedPicture? {
        switch self {
        case .h264(let d): d.decode(frame)
        case .vp8(let d): d.decode(frame)
        }
    }
}
