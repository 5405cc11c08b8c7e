import Media
import RTP
import Synchronization
import ControlProtocol

/// One outgoing stream to one receiver: its SSRC, sequence numbers and
/// timestamps, and which encoder generation may feed it. It is the only
/// owner of that numbering, so no two packets ever share an (SSRC, sequence
/// number): a replaced encoder that returns late is refused here, and a new
/// transceiver (a new SSRC, so a new decoder at the receiver) starts afresh.
final class Transceiver: Sendable {
    private struct Numbering {
        var stream: OutgoingRTPStream
        var packetizer: VideoPacketizer
        var generation: Int
        var retired = false
        var scratch: [UInt8] = []
        var refused = 0
    }

    let ssrc: UInt32
    private let numbering: Mutex<Numbering>

    init(ssrc: UInt32, payloadType: UInt8, codec: ReceiverConfig.Codec, generation: Int) {
        self.ssrc = ssrc
        var scratch: [UInt8] = []
        scratch.reserveCapacity(PacketQueue.slotSize)
        numbering = Mutex(Numbering(stream: .random(ssrc: ssrc, payloadType: payloadType), packetizer: VideoPacketizer(codec),
                                    generation: generation, scratch: scratch))
    }

    func timestamp(for captureTime: Instant) -> UInt32 {
        numbering.withLock { $0.stream.timestamp(for: captureTime) }
    }

    var generation: Int { numbering.withLock { $0.generation } }

    /// Frames whose encoder had been replaced, or whose transceiver had, when they came out.
    var refusedFrames: Int { numbering.withLock { $0.refused } }

    /// A new encoder takes over: whatever an older one still produces is refused.
    func beginGeneration() -> Int {
        numbering.withLock {
            $0.generation += 1
            return $0.generation
        }
    }

    /// This stream is replaced by a new transceiver: nothing more is sent on it.
    func retire() {
        numbering.withLock { $0.retired = true }
    }

    /// Packetizes a part of a frame of encoder `generation` into `queue`
    /// under this stream's numbers, the marker on the last packet of the part
    /// that ends the frame; false (and nothing queued) when that generation is
    /// no longer the one feeding it. Parts come from the encoder's threads one
    /// at a time, in order; the numbering lock keeps them whole.
    func send(_ part: UnsafeRawBufferPointer, endsFrame: Bool, keyframe: Bool, timestamp: UInt32, generation: Int,
              into queue: PacketQueue) -> Bool {
        numbering.withLock { n in
            guard !n.retired, n.generation == generation else {
                if endsFrame { n.refused += 1 }
                return false
            }
            n.packetizer.packetize(part, endsFrame: endsFrame) { payload, last in
                n.scratch.removeAll(keepingCapacity: true)
                let sequence = n.stream.startPacket(marker: last, timestamp: timestamp, into: &n.scratch)
                n.scratch.append(contentsOf: payload)
                let info = PacketInfo(ssrc: n.stream.ssrc, sequence: sequence, timestamp: timestamp, marker: last, retransmission: false,
                                      payloadLength: payload.count, keyframe: keyframe)
                _ = n.scratch.withUnsafeBytes { bytes in queue.push(info) { $0.copyMemory(from: bytes); return bytes.count } }
            }
            return true
        }
    }
}
