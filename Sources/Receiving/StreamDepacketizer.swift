import RTP
import SRTP
import Transport

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

    /// Frames dropped for growing past the bound a frame may reach (docs/behaviour.md §6.2).
    var oversizedFrames: Int { h264?.oversizedFrames ?? vp8?.oversizedFrames ?? 0 }

    mutating func push(_ payload: UnsafeRawBufferPointer, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool) -> DepacketizedFrame? {
        if h264 != nil { return h264?.push(payload, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker) }
        return vp8?.push(payload, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker)
    }
}
