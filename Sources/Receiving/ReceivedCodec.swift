import Codecs
import RTP

/// The codec a receiver expects (`screen-receiver --codec`). Taken as an
/// option rather than guessed: a VP8 payload descriptor and an H.264 NAL
/// header cannot be told apart by their first byte.
public enum ReceivedCodec: String, Sendable, CaseIterable {
    case h264
    case vp8
}

/// RFC 6184 or RFC 7741 depacketizing, by the stream's codec.
struct StreamDepacketizer {
    private var h264: H264Depacketizer?
    private var vp8: VP8Depacketizer?

    init(_ codec: ReceivedCodec) {
        switch codec {
        case .h264: h264 = H264Depacketizer()
        case .vp8: vp8 = VP8Depacketizer()
        }
    }

    mutating func push(_ payload: UnsafeRawBufferPointer, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool) -> DepacketizedFrame? {
        if h264 != nil { return h264?.push(payload, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker) }
        return vp8?.push(payload, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker)
    }
}

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
