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

    mutating func packetize(_ frame: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer, Bool) -> Void) {
        h264?.packetize(frame, emit: emit)
        vp8?.packetize(frame, emit: emit)
    }
}
