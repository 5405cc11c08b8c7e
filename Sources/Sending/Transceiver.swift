import Encoders
import Encoding
import Media
import RTP
import SRTP
import Transport
import YUV
import ControlProtocol

/// One outgoing stream to one receiver: an SSRC with its sequence numbers
/// and the encoder that feeds it. Replacing it (a "new transceiver") gives
/// the receiver a new stream, so a new decoder at its end.
final class Transceiver: @unchecked Sendable {
    // Safety: used only on its connection's encode thread.
    let ssrc: UInt32
    let payloadType: UInt8
    private(set) var sequence: UInt16
    let timestampBase: UInt32
    let codec: ReceiverConfig.Codec
    private var encoder: VideoEncoder?
    private var packetizer: VideoPacketizer
    private let converter = PixelConverter()
    private var picture = I420Picture(width: 16, height: 16)
    private var scratch: [UInt8] = []

    /// `continuing` carries on an existing stream's sequence numbers and
    /// timestamps (a fresh encoder on the same SSRC); a new stream starts
    /// from random ones.
    init(ssrc: UInt32, payloadType: UInt8, codec: ReceiverConfig.Codec, continuing: (sequence: UInt16, timestampBase: UInt32)? = nil) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.codec = codec
        packetizer = VideoPacketizer(codec)
        var random = SystemRandomNumberGenerator()
        sequence = continuing?.sequence ?? UInt16.random(in: 0...UInt16.max, using: &random)
        timestampBase = continuing?.timestampBase ?? UInt32.random(in: 0...UInt32.max, using: &random)
    }

    var settings: EncoderSettings? { encoder?.settings }

    /// 90 kHz media time from the capture time, so timestamps follow the screen, not the encoder.
    func rtpTimestamp(for captureTime: Instant) -> UInt32 {
        timestampBase &+ UInt32(truncatingIfNeeded: captureTime.nanoseconds / 1_000_000 * 90)
    }

    /// Makes sure an encoder with these settings is running: a new size or
    /// rate needs a new x264 instance (new SPS in band, same stream); a new
    /// bitrate alone is a live reconfiguration. The codec (x264 or libvpx)
    /// is the receiver's, chosen when it was added.
    func configure(_ wanted: EncoderSettings) throws(CodecError) {
        if let current = encoder?.settings {
            var sameShape = current
            sameShape.bitrate = wanted.bitrate
            if sameShape == wanted {
                if current.bitrate != wanted.bitrate { try encoder?.setBitrate(wanted.bitrate) }
                return
            }
        }
        encoder = nil
        encoder = try VideoEncoder(codec, settings: wanted)
        picture.resize(width: wanted.width, height: wanted.height)
    }

    /// Encodes `surface` as the picture at `time` (its capture time, or now
    /// for a still-frame repeat: a repeat is a new frame on the stream's
    /// clock) and hands each RTP packet (plain) to `send`.
    /// Returns whether a frame came out and whether it was a keyframe.
    func encode(_ surface: Surface, at time: Instant, keyframe: Bool, send: (UnsafeRawBufferPointer) -> Void) throws(CodecError) -> (encoded: Bool, keyframe: Bool, bytes: Int, timestamp: UInt32) {
        guard let encoder else { return (false, false, 0, 0) }
        converter.convert(surface, into: picture)
        let timestamp = rtpTimestamp(for: time)
        guard let frame = try encoder.encode(picture, rtpTimestamp: timestamp, keyframe: keyframe) else {
            return (false, false, 0, timestamp)
        }
        scratch.reserveCapacity(PacketQueue.slotSize)
        packetizer.packetize(frame.bytes) { payload, last in
            scratch.removeAll(keepingCapacity: true)
            RTPHeader(marker: last, payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc)
                .marshal(into: &scratch)
            AbsoluteSendTime.appendPlaceholder(to: &scratch)
            scratch.append(contentsOf: payload)
            sequence &+= 1
            scratch.withUnsafeBytes { send($0) }
        }
        return (true, frame.isKeyframe, frame.bytes.count, timestamp)
    }
}
