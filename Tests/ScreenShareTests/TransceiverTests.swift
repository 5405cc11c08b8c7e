import Media
import RTP
import Testing
import ControlProtocol
@testable import Sending

/// The transceiver numbering a frame handed over slice by slice.
struct TransceiverTests {
    static let codec = ReceiverConfig.Codec.h264(.chromiumDefault)

    /// Everything queued, in order, as (header, info).
    static func drain(_ queue: PacketQueue) -> [(header: RTPHeader, info: PacketInfo)] {
        var out: [(RTPHeader, PacketInfo)] = []
        var buffer = [UInt8](repeating: 0, count: PacketQueue.slotSize)
        while case .packet(let length, let info) = queue.pop(into: &buffer, now: .seconds(1000)) {
            if let packet = try? RTPPacket.parse(Array(buffer[0..<length])) { out.append((packet.header, info)) }
        }
        return out
    }

    static let stamp = Instant.seconds(7)

    static func send(_ transceiver: Transceiver, _ bytes: [UInt8], endsFrame: Bool, keyframe: Bool = false,
                     feed: Int, into queue: PacketQueue) -> Bool {
        bytes.withUnsafeBytes {
            transceiver.send($0, endsFrame: endsFrame, keyframe: keyframe, at: stamp, feed: feed, into: queue)
        }
    }

    @Test func partsOfAFrame_areNumberedInOrder_markerOnTheLastPacketOnly() {
        let queue = PacketQueue(rate: 100_000_000, clock: ManualClock())
        let transceiver = Transceiver(ssrc: 0x1234, payloadType: 96, codec: Self.codec, extensions: .standard, feed: 0)
        // An IDR's first part (SPS, PPS, a slice of 3000 bytes: three FU-A), then its last slice.
        let first: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x1F, 0, 0, 0, 1, 0x68, 0xCE, 0x3C, 0x80, 0, 0, 1, 0x65]
            + [UInt8](repeating: 0xAB, count: 3000)
        let last: [UInt8] = [0, 0, 1, 0x65] + [UInt8](repeating: 0xCD, count: 500)
        #expect(Self.send(transceiver, first, endsFrame: false, keyframe: true, feed: 0, into: queue))
        let early = Self.drain(queue)
        // The first part is on its way before the last is encoded: STAP-A and three fragments, none marked.
        #expect(early.count == 4)
        #expect(early.allSatisfy { !$0.header.marker && $0.info.keyframe })
        #expect(Self.send(transceiver, last, endsFrame: true, keyframe: true, feed: 0, into: queue))
        let rest = Self.drain(queue)
        #expect(rest.count == 1)
        #expect(rest[0].header.marker)
        let all = early + rest
        #expect(zip(all, all.dropFirst()).allSatisfy { $1.header.sequenceNumber == $0.header.sequenceNumber &+ 1 })
        #expect(all.allSatisfy { $0.header.ssrc == 0x1234 && $0.header.timestamp == transceiver.timestamp(for: Self.stamp) })
    }

    @Test func probePadding_carriesTheStreamsClock_beforeTheFirstFrame_andTheLastFramesTimestampAfter() {
        let queue = PacketQueue(rate: 100_000_000, clock: ManualClock())
        let transceiver = Transceiver(ssrc: 0x1234, payloadType: 96, codec: Self.codec, extensions: .standard, feed: 0)
        // A probe at 6.9 s, before any frame: stamped with the stream's clock then, 100 ms before the
        // first frame's capture, not with the stream's base, hours of RTP time away.
        transceiver.sendPadding(count: 2, cluster: 1, bitrate: 1_000_000, at: Self.stamp - .milliseconds(100), into: queue)
        let early = Self.drain(queue)
        #expect(early.count == 2)
        #expect(early.allSatisfy { $0.header.timestamp == transceiver.timestamp(for: Self.stamp) &- 9000 })
        let keyframe: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x1F, 0, 0, 0, 1, 0x68, 0xCE, 0x3C, 0x80, 0, 0, 1, 0x65, 0xAB]
        #expect(Self.send(transceiver, keyframe, endsFrame: true, keyframe: true, feed: 0, into: queue))
        _ = Self.drain(queue)
        transceiver.sendPadding(count: 1, cluster: 2, bitrate: 1_000_000, at: Self.stamp + .seconds(5), into: queue)
        #expect(Self.drain(queue).map(\.header.timestamp) == [transceiver.timestamp(for: Self.stamp)])
    }

    @Test func encoderReplacedMidFrame_restOfTheFrameIsRefused_numbersCarryOnFromTheNewKeyframe() {
        let queue = PacketQueue(rate: 100_000_000, clock: ManualClock())
        let transceiver = Transceiver(ssrc: 0x1234, payloadType: 96, codec: Self.codec, extensions: .standard, feed: 0)
        let slice: [UInt8] = [0, 0, 1, 0x41, 1, 2, 3]
        let idr: [UInt8] = [0, 0, 1, 0x65, 1, 2, 3]
        #expect(Self.send(transceiver, idr, endsFrame: false, keyframe: true, feed: 0, into: queue))
        let before = Self.drain(queue)
        transceiver.follow(feed: 5)
        // The replaced encoder's last slice comes out late: refused, nothing queued.
        #expect(!Self.send(transceiver, slice, endsFrame: true, feed: 0, into: queue))
        #expect(Self.drain(queue).isEmpty)
        #expect(transceiver.refusedFrames == 1)
        // The new encoder's frames count from its keyframe, which carries on the numbering.
        #expect(!Self.send(transceiver, slice, endsFrame: true, feed: 5, into: queue))
        #expect(Self.send(transceiver, idr, endsFrame: true, keyframe: true, feed: 5, into: queue))
        #expect(Self.send(transceiver, slice, endsFrame: true, feed: 5, into: queue))
        let after = Self.drain(queue)
        #expect(after.count == 2 && after.allSatisfy { $0.header.marker })
        #expect(after[0].header.sequenceNumber == before[0].header.sequenceNumber &+ 1)
        #expect(transceiver.refusedFrames == 2)
    }

    /// A new stream (a new member of a layer, a rebuild) starts at a keyframe: a decoder can start nowhere else.
    @Test func newStream_takesNothingBeforeAKeyframe() {
        let queue = PacketQueue(rate: 100_000_000, clock: ManualClock())
        let transceiver = Transceiver(ssrc: 0x1234, payloadType: 96, codec: Self.codec, extensions: .standard, feed: 3)
        #expect(!Self.send(transceiver, [0, 0, 1, 0x41, 9], endsFrame: true, feed: 3, into: queue))
        #expect(Self.drain(queue).isEmpty)
        #expect(Self.send(transceiver, [0, 0, 1, 0x65, 9], endsFrame: true, keyframe: true, feed: 3, into: queue))
        #expect(Self.drain(queue).count == 1)
    }
}
