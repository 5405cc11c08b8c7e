import Media
import Testing
@testable import RTP

/// The extension block a stream writes under the ids its receiver negotiated,
/// and the padding-only packets probes are made of.
struct HeaderExtensionMapTests {
    static let both = HeaderExtensionMap(absoluteSendTimeID: 2, transportSequenceNumber: TransportSequenceNumber(extensionID: 4))!

    static func stream(_ map: HeaderExtensionMap) -> OutgoingRTPStream {
        OutgoingRTPStream(ssrc: 0x1234_5678, payloadType: 96, firstSequence: 65535, timestampBase: 9000, extensions: map)
    }

    @Test func bothExtensions_oneBlock_fixture() throws {
        var stream = Self.stream(Self.both)
        var bytes: [UInt8] = []
        #expect(stream.startPacket(marker: true, timestamp: 9000, into: &bytes) == 65535)
        bytes += [0x65, 0x88]
        #expect(Array(bytes[0..<4]) == [0x90, 0xE0, 0xFF, 0xFF])  // v=2, X=1 | M=1, PT=96 | seq=65535
        #expect(Array(bytes[12...]) == [
            0xBE, 0xDE, 0x00, 0x02,  // one-byte profile, length=2 words
            0x22, 0x00, 0x00, 0x00,  // ID=2, L=2: abs-send-time, zero until it leaves
            0x41, 0x00, 0x00, 0x00,  // ID=4, L=1: transport-wide sequence number, padding
            0x65, 0x88,              // payload
        ])
        #expect(Self.both.size == 12)
        bytes.withUnsafeMutableBytes { Self.both.stamp($0, at: .seconds(1.5), transportSequenceNumber: 0xBEEF) }
        #expect(bytes.withUnsafeBytes { AbsoluteSendTime.read($0, extensionID: 2) } == 393_216)
        #expect(bytes.withUnsafeBytes { TransportSequenceNumber(extensionID: 4)!.read($0) } == 0xBEEF)
        #expect(Array(try RTPPacket.parse(bytes).payloadRange) == [24, 25])
        // The next packet's number wraps.
        var next: [UInt8] = []
        #expect(stream.startPacket(marker: false, timestamp: 9000, into: &next) == 0)
    }

    @Test func transportWideAlone_andNothing() {
        let alone = HeaderExtensionMap(absoluteSendTimeID: nil, transportSequenceNumber: TransportSequenceNumber(extensionID: 5))!
        var stream = Self.stream(alone)
        var bytes: [UInt8] = []
        _ = stream.startPacket(marker: false, timestamp: 0, into: &bytes)
        #expect(Array(bytes[12...]) == [0xBE, 0xDE, 0x00, 0x01, 0x51, 0x00, 0x00, 0x00])
        bytes.withUnsafeMutableBytes { alone.stamp($0, at: .seconds(2), transportSequenceNumber: 7) }
        #expect(Array(bytes[12...]) == [0xBE, 0xDE, 0x00, 0x01, 0x51, 0x00, 0x07, 0x00])

        let none = HeaderExtensionMap(absoluteSendTimeID: nil)!
        var plain = Self.stream(none)
        var header: [UInt8] = []
        _ = plain.startPacket(marker: false, timestamp: 0, into: &header)
        #expect(header.count == 12 && header[0] == 0x80)
        #expect(none.size == 0)
    }

    @Test func idsTheOneByteFormCannotCarry_orSharedByBoth_areRefused() {
        #expect(HeaderExtensionMap(absoluteSendTimeID: 15) == nil)
        #expect(HeaderExtensionMap(absoluteSendTimeID: 0) == nil)
        #expect(HeaderExtensionMap(absoluteSendTimeID: 5, transportSequenceNumber: TransportSequenceNumber(extensionID: 5)) == nil)
    }

    @Test func paddingPacket_isAllPadding_withFreshNumbers() throws {
        var stream = Self.stream(Self.both)
        var media: [UInt8] = []
        #expect(stream.startPacket(marker: true, timestamp: 3000, into: &media) == 65535)
        var bytes: [UInt8] = []
        #expect(stream.paddingPacket(timestamp: 3000, into: &bytes) == 0)
        #expect(bytes.count == stream.paddingPacketSize)
        #expect(bytes.count == 12 + 12 + 255)
        #expect(bytes[0] == 0xB0)  // v=2, P=1, X=1
        #expect(bytes[1] == 96)  // no marker
        #expect(bytes.last == 255)
        let parsed = try RTPPacket.parse(bytes)
        #expect(parsed.header.padding)
        #expect(parsed.payloadRange.isEmpty)
        #expect(parsed.header.sequenceNumber == 0)
    }
}
