import Media
import Testing
@testable import RTP

struct TransportSequenceNumberTests {
    static let sequence = TransportSequenceNumber(extensionID: 5)!

    /// A packet with abs-send-time and the transport-wide sequence number in one block.
    static func packet(sequenceNumber: UInt16 = 0x1234) -> [UInt8] {
        var bytes: [UInt8] = []
        RTPHeader(marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 9000, ssrc: 0x1234_5678).marshal(into: &bytes)
        HeaderExtensionBlock([AbsoluteSendTime.placeholder, sequence.element(sequenceNumber)])!.append(to: &bytes)
        bytes += [0x65, 0x88]
        return bytes
    }

    @Test func sharedBlock_fixture() throws {
        let bytes = Self.packet()
        #expect(Array(bytes[0..<4]) == [0x90, 0xE0, 0x00, 0x07])  // v=2, X=1, CC=0 | M=1, PT=96 | seq=7
        #expect(Array(bytes[12...]) == [
            0xBE, 0xDE, 0x00, 0x02,  // one-byte profile, length=2 words
            0x32, 0x00, 0x00, 0x00,  // ID=3, L=2: abs-send-time placeholder
            0x51, 0x12, 0x34, 0x00,  // ID=5, L=1: transport seq=0x1234, one byte of padding
            0x65, 0x88,              // payload
        ])
        let parsed = try RTPPacket.parse(bytes)
        #expect(Array(bytes[parsed.payloadRange]) == [0x65, 0x88])
    }

    @Test func coexistsWithAbsoluteSendTime() {
        var bytes = Self.packet()
        bytes.withUnsafeMutableBytes {
            AbsoluteSendTime.stamp($0, at: .seconds(1.5))
            #expect(Self.sequence.stamp($0, sequenceNumber: 0xBEEF))
        }
        #expect(bytes.withUnsafeBytes { AbsoluteSendTime.read($0) } == 393_216)
        #expect(bytes.withUnsafeBytes { Self.sequence.read($0) } == 0xBEEF)
    }

    @Test func sequenceNumbers_wrapSweep() {
        let sweep = Array(UInt16(65527)...UInt16.max) + Array(UInt16(0)...9)
        var bytes = Self.packet()
        for value in sweep {
            bytes.withUnsafeMutableBytes { _ = Self.sequence.stamp($0, sequenceNumber: value) }
            #expect(bytes.withUnsafeBytes { Self.sequence.read($0) } == value)
            #expect(Self.packet(sequenceNumber: value).withUnsafeBytes { Self.sequence.read($0) } == value)
        }
    }

    @Test func extensionID_isConfigurableWithinOneByteRange() {
        #expect(TransportSequenceNumber(extensionID: 0) == nil)
        #expect(TransportSequenceNumber(extensionID: 15) == nil)
        let fourteen = TransportSequenceNumber(extensionID: 14)!
        var bytes: [UInt8] = []
        RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 1).marshal(into: &bytes)
        HeaderExtensionBlock([fourteen.element(42)])!.append(to: &bytes)
        #expect(Array(bytes[12...]) == [0xBE, 0xDE, 0x00, 0x01, 0xE1, 0x00, 0x2A, 0x00])
        #expect(bytes.withUnsafeBytes { fourteen.read($0) } == 42)
        #expect(bytes.withUnsafeBytes { Self.sequence.read($0) } == nil)
    }

    @Test func blockRefusesElementsItCannotWrite() {
        #expect(HeaderExtensionBlock([.init(id: 15, data: [1])]) == nil)
        #expect(HeaderExtensionBlock([.init(id: 1, data: [])]) == nil)
        #expect(HeaderExtensionBlock([.init(id: 1, data: [UInt8](repeating: 0, count: 17))]) == nil)
    }

    @Test func readerSkipsPaddingAndCSRCs() {
        var bytes: [UInt8] = []
        RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 1, csrcs: [9]).marshal(into: &bytes)
        bytes[0] |= RTPHeader.extensionBit
        bytes += [
            0xBE, 0xDE, 0x00, 0x02,  // one-byte profile, length=2
            0x00, 0x00, 0x10, 0x07,  // padding, padding, ID=1 L=0: 0x07
            0x51, 0xAB, 0xCD, 0x00,  // ID=5 L=1: 0xabcd, padding
        ]
        #expect(bytes.withUnsafeBytes { Self.sequence.read($0) } == 0xABCD)
    }

    @Test func malformedBlocks_giveNilNeverTrap() {
        let good = Self.packet()
        // Every truncation of a good packet: the declared block no longer fits.
        for length in 0..<good.count - 2 {
            #expect(Array(good[0..<length]).withUnsafeBytes { Self.sequence.read($0) } == nil)
        }
        var longLength = good
        longLength[15] = 0x09  // block claims 9 words
        var overrun = good
        overrun[20] = 0x5F  // ID=5 claims 16 bytes past the block
        var terminated = good
        terminated[16] = 0xF0  // ID=15 ends the block before ID=5
        var twoByteProfile = good
        twoByteProfile[12] = 0x10
        twoByteProfile[13] = 0x00
        var noExtensionBit = good
        noExtensionBit[0] &= ~RTPHeader.extensionBit
        for bad in [longLength, overrun, terminated, twoByteProfile, noExtensionBit] {
            #expect(bad.withUnsafeBytes { Self.sequence.read($0) } == nil)
            var copy = bad
            #expect(!copy.withUnsafeMutableBytes { Self.sequence.stamp($0, sequenceNumber: 1) })
            #expect(copy == bad)
        }
    }
}
