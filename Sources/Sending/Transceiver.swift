import Media
import RTP
import Synchronization
import ControlProtocol

/// One outgoing stream to one receiver: its SSRC, sequence numbers and
/// timestamps, and which encoder may feed it. It is the only owner of that
/// numbering, so no two packets ever share an (SSRC, sequence number): a
/// replaced encoder that returns late is refused here, and a new transceiver
/// (a new SSRC, so a new decoder at the receiver) starts afresh. Whenever
/// its encoder changes (a fresh one, another layer's, a new stream) it
/// takes nothing until that encoder's next keyframe, which is all a decoder
/// can start from.
final class Transceiver: Sendable {
    private struct Numbering {
        var stream: OutgoingRTPStream
        var packetizer: VideoPacketizer
        var feed: Int
        var awaitingKeyframe = true
        var retired = false
        var scratch: [UInt8] = []
        var refused = 0
        /// The last frame's timestamp, which padding carries.
        var lastTimestamp: UInt32?
        /// The RTX stream's next sequence number (RFC 4588: its own, from a random start).
        var retransmissionSequence = UInt16.random(in: 0...UInt16.max)
    }

    let ssrc: UInt32
    /// The RTX stream's SSRC and payload type, where the receiver negotiated RTX.
    let retransmission: (ssrc: UInt32, payloadType: UInt8)?
    private let numbering: Mutex<Numbering>

    /// `firstSequence` nil numbers from a random start.
    /// `retransmissionSSRC` is the RTX stream's when `retransmission` is given; random when nil.
    init(ssrc: UInt32, payloadType: UInt8, codec: ReceiverConfig.Codec, extensions: HeaderExtensionMap, feed: Int = 0,
         firstSequence: UInt16? = nil, retransmission: ReceiverConfig.Retransmission? = nil) {
        self.ssrc = ssrc
        self.retransmission = retransmission.map { rtx in
            var rtxSSRC = rtx.ssrc ?? UInt32.random(in: 1...UInt32.max)
            while rtxSSRC == ssrc { rtxSSRC = UInt32.random(in: 1...UInt32.max) }
            return (rtxSSRC, rtx.payloadType)
        }
        var scratch: [UInt8] = []
        scratch.reserveCapacity(PacketQueue.slotSize)
        var stream = OutgoingRTPStream.random(ssrc: ssrc, payloadType: payloadType, extensions: extensions)
        if let firstSequence {
            stream = OutgoingRTPStream(ssrc: ssrc, payloadType: payloadType, firstSequence: firstSequence,
                                       timestampBase: stream.timestampBase, extensions: extensions)
        }
        paddingPacketSize = stream.paddingPacketSize
        numbering = Mutex(Numbering(stream: stream, packetizer: VideoPacketizer(codec), feed: feed, scratch: scratch))
    }

    /// The size of each padding packet a probe is sent in.
    let paddingPacketSize: Int

    func timestamp(for captureTime: Instant) -> UInt32 {
        numbering.withLock { $0.stream.timestamp(for: captureTime) }
    }

    var feed: Int { numbering.withLock { $0.feed } }

    /// Frames refused: their encoder or this transceiver had been replaced, or a keyframe was awaited.
    var refusedFrames: Int { numbering.withLock { $0.refused } }

    /// Whether this stream takes nothing until its encoder's next keyframe.
    var awaitsKeyframe: Bool { numbering.withLock { !$0.retired && $0.awaitingKeyframe } }

    /// This stream missed a frame: it takes nothing more until a keyframe.
    func awaitKeyframe() {
        numbering.withLock { $0.awaitingKeyframe = true }
    }

    /// Encoder `feed` takes over from its next keyframe: whatever another still produces is refused.
    func follow(feed: Int) {
        numbering.withLock {
            if $0.feed != feed { $0.awaitingKeyframe = true }
            $0.feed = feed
        }
    }

    /// This stream is replaced by a new transceiver: nothing more is sent on it.
    func retire() {
        numbering.withLock { $0.retired = true }
    }

    /// Packetizes a part of a frame of encoder `feed`, a picture of the
    /// moment `stamp`, into `queue` under this stream's numbers, the marker on
    /// the last packet of the part that ends the frame; false (and nothing
    /// queued) when that encoder is not the one feeding it, or a keyframe is
    /// awaited and this is none. Parts come from the encoder's threads one at
    /// a time, in order, a frame's first part first; the numbering lock keeps them whole.
    func send(_ part: UnsafeRawBufferPointer, endsFrame: Bool, keyframe: Bool, at stamp: Instant, feed: Int,
              into queue: PacketQueue) -> Bool {
        numbering.withLock { n in
            if n.feed == feed && n.awaitingKeyframe && keyframe { n.awaitingKeyframe = false }
            guard !n.retired, n.feed == feed, !n.awaitingKeyframe else {
                if endsFrame { n.refused += 1 }
                return false
            }
            let timestamp = n.stream.timestamp(for: stamp)
            n.lastTimestamp = timestamp
            n.packetizer.packetize(part, endsFrame: endsFrame) { payload, last in
                n.scratch.removeAll(keepingCapacity: true)
                let sequence = n.stream.startPacket(marker: last, timestamp: timestamp, into: &n.scratch)
                n.scratch.append(contentsOf: payload)
                let info = PacketInfo(ssrc: n.stream.ssrc, sequence: sequence, timestamp: timestamp, marker: last, keyframe: keyframe,
                                      kind: .media, payloadLength: payload.count)
                _ = n.scratch.withUnsafeBytes { bytes in queue.push(info) { $0.copyMemory(from: bytes); return bytes.count } }
            }
            return true
        }
    }

    /// Queues a probe cluster: `count` padding-only packets under this
    /// stream's next sequence numbers, to leave at `bitrate`. Numbered here
    /// and queued in order with the media, so the receiver sees no gap and
    /// nothing out of order. They carry the last frame's timestamp, or before
    /// the first, the stream's clock at `now`: stamped with the stream's
    /// base instead, they stood hours of RTP time before the first frame
    /// (its timestamp counts from the machine's boot), and rtpbin's jitter
    /// buffer threw its clock away at that frame.
    func sendPadding(count: Int, cluster: Int, bitrate: Double, at now: Instant, into queue: PacketQueue) {
        pad(count: count, padding: OutgoingRTPStream.maxPadding, kind: .probe(cluster: cluster), rate: bitrate, into: queue) { last, stream in
            last ?? stream.timestamp(for: now)
        }
    }

    /// Queues the smallest padding-only packet under the next sequence
    /// number, for a receiver that gives up on a number by the clock
    /// (docs/behaviour.md §7.7); nothing before this stream's first frame.
    /// It is stamped `keepaliveLag` before `now`: rtpbin gives a number up
    /// once its latency has passed since the RTP time of the packet before,
    /// so padding that carried the last frame's time would not hold it off;
    /// and a frame captured within the lag, still in its encoder, keeps its
    /// timestamp after the padding's.
    func sendKeepalive(at now: Instant, into queue: PacketQueue) {
        let lagged = timestamp(for: now - Self.keepaliveLag)
        pad(count: 1, padding: 1, kind: .keepalive, rate: nil, into: queue) { last, _ in
            last.map { lagged &- $0 < 0x8000_0000 ? lagged : $0 }
        }
    }

    static let keepaliveLag: Duration = .milliseconds(50)

    /// Whether `sequenceNumber` is one this stream has not numbered yet.
    func notNumberedYet(_ sequenceNumber: UInt16) -> Bool {
        numbering.withLock { sequenceNumber &- $0.stream.nextSequence < 0x8000 }
    }

    /// `stamp` gives the padding's timestamp from the last frame's (nil
    /// before the first) and the stream; nil sends nothing.
    private func pad(count: Int, padding: Int, kind: PacketInfo.Kind, rate: Double?, into queue: PacketQueue,
                     stamp: (_ last: UInt32?, _ stream: OutgoingRTPStream) -> UInt32?) {
        numbering.withLock { n in
            guard !n.retired, let timestamp = stamp(n.lastTimestamp, n.stream) else { return }
            for _ in 0..<count {
                n.scratch.removeAll(keepingCapacity: true)
                let sequence = n.stream.paddingPacket(timestamp: timestamp, padding: padding, into: &n.scratch)
                let info = PacketInfo(ssrc: n.stream.ssrc, sequence: sequence, timestamp: timestamp, marker: false, keyframe: false,
                                      kind: kind, payloadLength: 0)
                _ = n.scratch.withUnsafeBytes { bytes in
                    queue.push(info, rate: rate) { $0.copyMemory(from: bytes); return bytes.count }
                }
            }
        }
    }

    /// The RTX packet (RFC 4588) that carries `original`, one of this
    /// stream's packets, under the RTX stream's next number; nil without
    /// RTX, once retired, or for padding only.
    func rtxPacket(carrying original: UnsafeRawBufferPointer) -> (bytes: [UInt8], info: PacketInfo)? {
        guard let retransmission else { return nil }
        return numbering.withLock { n in
            guard !n.retired else { return nil }
            var bytes: [UInt8] = []
            let sequence = n.retransmissionSequence
            guard RetransmissionPacket.wrap(original, payloadType: retransmission.payloadType, ssrc: retransmission.ssrc,
                                            sequenceNumber: sequence, into: &bytes) != nil else { return nil }
            n.retransmissionSequence &+= 1
            return (bytes, PacketInfo(ssrc: retransmission.ssrc, sequence: sequence, timestamp: 0, marker: false, keyframe: false,
                                      kind: .rtx, payloadLength: bytes.count))
        }
    }
}
