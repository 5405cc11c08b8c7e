import Testing
@testable import RTP

struct H264DepacketizerTests {
    struct Packet { var payload: [UInt8]; var marker: Bool }

    static func packetize(_ au: [UInt8]) -> [Packet] {
        var packetizer = H264Packetizer()
        var out: [Packet] = []
        packetizer.packetize(au) { payload, last in out.append(Packet(payload: Array(payload), marker: last)) }
        return out
    }

    static func randomAccessUnit(size: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        // Values 2...255 keep start codes from appearing inside the NAL units.
        let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1F]
        let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
        let idr: [UInt8] = [0x65] + (0..<size).map { _ in UInt8.random(in: 2...255, using: &rng) }
        let sei: [UInt8] = [0x06, 0x05, 0x02]
        return [0, 0, 0, 1] + sps + [0, 0, 0, 1] + pps + [0, 0, 0, 1] + sei + [0, 0, 0, 1] + idr
    }

    @Test func largeRandomAccessUnit_roundTrips() {
        let au = Self.randomAccessUnit(size: 200_000)
        let packets = Self.packetize(au)
        #expect(packets.allSatisfy { $0.payload.count <= 1200 })
        var depacketizer = H264Depacketizer()
        var frames: [DepacketizedFrame] = []
        for (index, packet) in packets.enumerated() {
            if let frame = depacketizer.push(packet.payload, sequenceNumber: UInt16(truncatingIfNeeded: 65500 + index), timestamp: 9000, marker: packet.marker) {
                frames.append(frame)
            }
        }
        #expect(frames.count == 1)
        #expect(frames.first?.data == au)
        #expect(frames.first?.isComplete == true)
        #expect(frames.first?.isKeyframe == true)
        #expect(frames.first?.timestamp == 9000)
    }

    @Test(arguments: [UInt16(0), 32767, 65527, 65533, 65535])
    func sequenceWrap_doesNotLookLikeLoss(start: UInt16) {
        let packets = Self.packetize(Self.randomAccessUnit(size: 12_000))
        var depacketizer = H264Depacketizer()
        var frame: DepacketizedFrame?
        for (index, packet) in packets.enumerated() {
            frame = depacketizer.push(packet.payload, sequenceNumber: start &+ UInt16(index), timestamp: 1, marker: packet.marker)
        }
        #expect(frame?.isComplete == true)
    }

    @Test func lostMiddleFragment_reportsIncomplete() {
        var packets = Self.packetize(Self.randomAccessUnit(size: 5000))
        var sequence = (0..<UInt16(packets.count)).map { $0 }
        packets.remove(at: 3)
        sequence.remove(at: 3)
        var depacketizer = H264Depacketizer()
        var frame: DepacketizedFrame?
        for (packet, seq) in zip(packets, sequence) {
            frame = depacketizer.push(packet.payload, sequenceNumber: seq, timestamp: 1, marker: packet.marker)
        }
        #expect(frame?.isComplete == false)

        // The next access unit, arriving whole, is complete again.
        let next = depacketizer.push([0x41, 0x9A], sequenceNumber: UInt16(packets.count + 1), timestamp: 2, marker: true)
        #expect(next?.isComplete == true)
        #expect(next?.isKeyframe == false)
        #expect(next?.data == [0, 0, 0, 1, 0x41, 0x9A])
    }

    @Test func fragmentWithoutStart_reportsIncomplete() {
        var depacketizer = H264Depacketizer()
        // Sequence numbers are consecutive, but the FU-A start bit never came.
        _ = depacketizer.push([0x7C, 0x05, 1, 2], sequenceNumber: 10, timestamp: 1, marker: false)
        let frame = depacketizer.push([0x7C, 0x45, 3, 4], sequenceNumber: 11, timestamp: 1, marker: true)
        #expect(frame?.isComplete == false)
    }

    @Test func lostMarkerPacket_nextFrameReportedIncomplete() {
        var depacketizer = H264Depacketizer()
        _ = depacketizer.push([0x41, 0x01], sequenceNumber: 1, timestamp: 100, marker: false)
        let frame = depacketizer.push([0x41, 0x02], sequenceNumber: 3, timestamp: 200, marker: true)
        #expect(frame?.isComplete == false)
        #expect(frame?.data == [0, 0, 0, 1, 0x41, 0x02])
    }

    @Test func stapA_unpacksEachNAL() {
        var depacketizer = H264Depacketizer()
        let frame = depacketizer.push([0x78, 0x00, 0x02, 0x67, 0x42, 0x00, 0x02, 0x68, 0xCE], sequenceNumber: 0, timestamp: 0, marker: true)
        #expect(frame?.data == [0, 0, 0, 1, 0x67, 0x42, 0, 0, 0, 1, 0x68, 0xCE])
        #expect(frame?.isComplete == true)
    }

    /// A peer that never sets the marker nor moves the timestamp on cannot grow a frame past the bound.
    @Test func frameWithoutMarker_isDroppedAtTheBound() {
        var depacketizer = H264Depacketizer()
        let slice: [UInt8] = [0x41] + [UInt8](repeating: 0x5A, count: 1199)
        let packets = FrameAssembly.maxFrameBytes / (slice.count + 4) + 10
        for index in 0..<packets {
            #expect(depacketizer.push(slice, sequenceNumber: UInt16(truncatingIfNeeded: index), timestamp: 7, marker: false) == nil)
        }
        let frame = depacketizer.push(slice, sequenceNumber: UInt16(truncatingIfNeeded: packets), timestamp: 7, marker: true)
        #expect(frame?.data.isEmpty == true)
        #expect(frame?.isComplete == false)
        #expect(depacketizer.oversizedFrames == 1)

        // The next access unit is taken as usual.
        let next = depacketizer.push([0x65, 0x88], sequenceNumber: UInt16(truncatingIfNeeded: packets + 1), timestamp: 8, marker: true)
        #expect(next == DepacketizedFrame(data: [0, 0, 0, 1, 0x65, 0x88], timestamp: 8, isComplete: true, isKeyframe: true))
        #expect(depacketizer.oversizedFrames == 1)
    }

    /// A frame of exactly the bound is still a frame.
    @Test func frameAtTheBound_isKept() {
        var depacketizer = H264Depacketizer()
        let nal: [UInt8] = [0x41] + [UInt8](repeating: 0x5A, count: FrameAssembly.maxFrameBytes - 5)
        let frame = depacketizer.push(nal, sequenceNumber: 1, timestamp: 1, marker: true)
        #expect(frame?.data.count == FrameAssembly.maxFrameBytes)
        #expect(frame?.isComplete == true)
        #expect(depacketizer.oversizedFrames == 0)
    }
}
