import Testing
@testable import RTP

struct RTPPacketTests {
    static let fixture: [UInt8] = [
        0x90, 0xE0, 0x69, 0x8F,  // v=2, p=0, x=1, cc=0, m=1, pt=96, seq=27023
        0xD9, 0xC2, 0x93, 0xDA,  // timestamp=3653407706
        0x1C, 0x64, 0x27, 0x82,  // ssrc=476325762
        0x00, 0x01, 0x00, 0x01,  // extension profile=1, length=1 word
        0xFF, 0xFF, 0xFF, 0xFF,  // extension data (skipped)
        0x98, 0x36, 0xBE, 0x88,  // payload
    ]

    @Test func parse_skipsExtension_givesHeaderAndPayload() throws {
        let packet = try RTPPacket.parse(Self.fixture)
        #expect(packet.header.marker)
        #expect(packet.header.hasExtension)
        #expect(packet.header.payloadType == 96)
        #expect(packet.header.sequenceNumber == 27023)
        #expect(packet.header.timestamp == 3_653_407_706)
        #expect(packet.header.ssrc == 476_325_762)
        #expect(packet.payloadRange == 20..<24)
    }

    @Test func parse_keepsCSRCs_stripsPadding() throws {
        let bytes: [UInt8] = [
            0xA1, 0x60, 0x00, 0x01,  // v=2, p=1, x=0, cc=1, m=0, pt=96, seq=1
            0x00, 0x00, 0x00, 0x02,  // timestamp=2
            0x00, 0x00, 0x00, 0x03,  // ssrc=3
            0x00, 0x00, 0x00, 0x04,  // csrc=4
            0xAB, 0x00, 0x00, 0x03,  // payload 0xAB, then 3 bytes of padding
        ]
        let packet = try RTPPacket.parse(bytes)
        #expect(packet.header.csrcs == [4])
        #expect(packet.header.padding)
        #expect(packet.payloadRange == 16..<17)
    }

    @Test func marshal_roundTrips() throws {
        let header = RTPHeader(marker: true, payloadType: 102, sequenceNumber: 65535, timestamp: 90000, ssrc: 0xDEADBEEF, csrcs: [7])
        var out: [UInt8] = []
        RTPPacket.marshal(header: header, payload: [1, 2, 3], into: &out)
        #expect(out.count == header.size + 3)
        let packet = try RTPPacket.parse(out)
        #expect(packet.header == header)
        #expect(Array(out[packet.payloadRange]) == [1, 2, 3])
    }

    @Test func writeFixedHeader_matchesMarshal() throws {
        var buffer = [UInt8](repeating: 0xEE, count: 16)
        try buffer.withUnsafeMutableBytes { raw in
            try RTPHeader.write(into: raw, marker: true, payloadType: 96, sequenceNumber: 27023, timestamp: 3_653_407_706, ssrc: 476_325_762)
        }
        var expected: [UInt8] = []
        RTPHeader(marker: true, payloadType: 96, sequenceNumber: 27023, timestamp: 3_653_407_706, ssrc: 476_325_762).marshal(into: &expected)
        #expect(Array(buffer[0..<12]) == expected)
        #expect(buffer[12] == 0xEE)
    }

    @Test func writeFixedHeader_smallBuffer_throws() {
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(throws: RTPError.bufferTooSmall(needed: 12, capacity: 8)) {
            try buffer.withUnsafeMutableBytes { raw in
                try RTPHeader.write(into: raw, marker: false, payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 0)
            }
        }
    }

    @Test func parse_rejectsMalformed() {
        #expect(throws: RTPError.tooShort(needed: 12, got: 4)) { try RTPPacket.parse([0x80, 0, 0, 0]) }
        var wrongVersion = Self.fixture
        wrongVersion[0] = 0x50
        #expect(throws: RTPError.unsupportedVersion(1)) { try RTPPacket.parse(wrongVersion) }
        #expect(throws: RTPError.tooShort(needed: 20, got: 18)) { try RTPPacket.parse(Array(Self.fixture[0..<18])) }
        var badPadding = Self.fixture
        badPadding[0] |= 0x20
        #expect(throws: RTPError.invalidPadding(count: 0x88)) { try RTPPacket.parse(badPadding) }
    }
}
