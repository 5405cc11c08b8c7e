import RTP
import SRTP
import Transport
import ControlProtocol

/// The packetizer that goes with it: RFC 6184 mode 1 or RFC 7741. Each is
/// mutated in place (an optional, not an enum payload), so a warm one
/// allocates nothing per frame.
struct VideoPacketizer {
    private var h264: H264Packetizer?
    private var vp8: VP8Packetizer?

    init(_ codec: ReceiverConfig.Codec) {
        switch codec {
        case .h264: h264 = H264Packetizer()
        case .vp8: vp8 = VP8Packetizer(firstPictureID: UInt16.random(in: 0...0x7FFF))
        }
    }

    /// `part` is a whole frame (VP8 always), or whole NAL units of one (H.264), `endsFrame` on the last.
    mutating func packetize(_ part: UnsafeRawBufferPointer, endsFrame: Bool, emit: (UnsafeRawBufferPointer, Bool) -> Void) {
        h264?.packetize(part, endsAccessUnit: endsFrame, emit: emit)
        vp8?.packetize(part, emit: emit)
    }
}
