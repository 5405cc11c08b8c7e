import Testing
@testable import RTP

struct VP8Tests {
    struct Packet { var payload: [UInt8]; var marker: Bool }

    static func packetize(_ frame: [UInt8], packetizer: inout VP8Packetizer) -> [Packet] {
        var out: [Packet] = []
        packetizer.packetize(frame) { payload, last in out.append(Packet(payload: Array(payload), marker: last)) }
        return out
    }

    @Test func descriptor_exactBytes() {
        var packetizer = VP8Packetizer(maxPayloadSize: 8, firstPictureID: 0x1234)
        let out = Self.packetize([0x10, 1, 2, 3, 4, 5], packetizer: &packetizer)
        #expect(out.map(\.payload) == [
            [0x90, 0x80, 0x92, 0x34, 0x10, 1, 2, 3],  // X=1 S=1 PID=0; I=1; M=1 PictureID=0x1234
            [0x80, 0x80, 0x92, 0x34, 4, 5],           // X=1 S=0
        ])
        #expect(out.map(\.marker) == [false, true])
        #expect(packetizer.pictureID == 0x1235)
    }

    @Test func pictureID_wrapsAt15Bits() {
        var packetizer = VP8Packetizer(firstPictureID: 0x7FFF)
        _ = Self.packetize([0x11], packetizer: &packetizer)
        #expect(packetizer.pictureID == 0)
    }

    @Test func largeKeyframe_roundTrips() {
        var packetizer = VP8Packetizer()
        // First byte 0x10: P bit (0x01) clear, a key frame.
        let frame: [UInt8] = [0x10] + (0..<50_000).map { UInt8(truncatingIfNeeded: $0) }
        let packets = Self.packetize(frame, packetizer: &packetizer)
        #expect(packets.allSatisfy { $0.payload.count <= 1200 })
        var depacketizer = VP8Depacketizer()
        var result: DepacketizedFrame?
        for (index, packet) in packets.enumerated() {
            result = depacketizer.push(packet.payload, sequenceNumber: 65530 &+ UInt16(index), timestamp: 3000, marker: packet.marker)
        }
        #expect(result == DepacketizedFrame(data: frame, timestamp: 3000, isComplete: true, isKeyframe: true))
    }

    @Test func interframe_isNotKeyframe() {
        var packetizer = VP8Packetizer()
        let packets = Self.packetize([0x11, 0xAA], packetizer: &packetizer)
        var depacketizer = VP8Depacketizer()
        let result = depacketizer.push(packets[0].payload, sequenceNumber: 1, timestamp: 1, marker: true)
        #expect(result?.isKeyframe == false)
        #expect(result?.isComplete == true)
    }

    @Test func lostPacket_reportsIncomplete() {
        var packetizer = VP8Packetizer()
        var packets = Self.packetize([0x10] + [UInt8](repeating: 7, count: 5000), packetizer: &packetizer)
        packets.remove(at: 2)
        var depacketizer = VP8Depacketizer()
        var result: DepacketizedFrame?
        for (index, packet) in packets.enumerated() {
            let seq = UInt16(index >= 2 ? index + 1 : index)
            result = depacketizer.push(packet.payload, sequenceNumber: seq, timestamp: 1, marker: packet.marker)
        }
        #expect(result?.isComplete == false)
    }

    @Test func lostFirstPacket_reportsIncomplete() {
        var depacketizer = VP8Depacketizer()
        let result = depacketizer.push([0x80, 0x80, 0x80, 0x01, 9, 9], sequenceNumber: 5, timestamp: 1, marker: true)
        #expect(result?.isComplete == false)
    }

    /// A peer that never sets the marker nor moves the timestamp on cannot grow a frame past the bound.
    @Test func frameWithoutMarker_isDroppedAtTheBound() {
        var depacketizer = VP8Depacketizer()
        let start: [UInt8] = [0x10, 0x10] + [UInt8](repeating: 3, count: 1198)
        let more: [UInt8] = [0x00] + [UInt8](repeating: 3, count: 1199)
        _ = depacketizer.push(start, sequenceNumber: 0, timestamp: 5, marker: false)
        let packets = FrameAssembly.maxFrameBytes / (more.count - 1) + 10
        for index in 1..<packets {
            #expect(depacketizer.push(more, sequenceNumber: UInt16(truncatingIfNeeded: index), timestamp: 5, marker: false) == nil)
        }
        let frame = depacketizer.push(more, sequenceNumber: UInt16(truncatingIfNeeded: packets), timestamp: 5, marker: true)
        #expect(frame == DepacketizedFrame(data: [], timestamp: 5, isComplete: false, isKeyframe: false))
        #expect(depacketizer.oversizedFrames == 1)

        let next = depacketizer.push([0x10, 0x11, 0xAA], sequenceNumber: UInt16(truncatingIfNeeded: packets + 1), timestamp: 6, marker: true)
        #expect(next == DepacketizedFrame(data: [0x11, 0xAA], timestamp: 6, isComplete: true, isKeyframe: false))
    }
}
