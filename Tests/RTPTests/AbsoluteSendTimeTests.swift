import Media
import Testing
@testable import RTP

struct AbsoluteSendTimeTests {
    func packet() -> [UInt8] {
        var bytes: [UInt8] = []
        RTPHeader(marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 9000, ssrc: 0x1234_5678).marshal(into: &bytes)
        HeaderExtensionMap.standard.appendPlaceholder(to: &bytes)
        bytes += [0x65, 0x88]
        return bytes
    }

    @Test func placeholderIsAOneByteHeaderExtensionTheParserSkips() throws {
        let bytes = packet()
        // v=2, X=1, CC=0 | M=1, PT=96 | ... | 0xBEDE, length 1 | ID=3, L=2 (3 bytes), 0, 0, 0
        #expect(bytes[0] == 0x90)
        #expect(Array(bytes[12..<20]) == [0xBE, 0xDE, 0x00, 0x01, 0x32, 0, 0, 0])
        let parsed = try RTPPacket.parse(bytes)
        #expect(parsed.header.hasExtension)
        #expect(Array(bytes[parsed.payloadRange]) == [0x65, 0x88])
    }

    @Test func stampedTimeReadsBack() {
        var bytes = packet()
        // 1.5 s is 1.5 × 2^18 = 393216 in 6.18 fixed point.
        bytes.withUnsafeMutableBytes { AbsoluteSendTime.stamp($0, at: .seconds(1.5)) }
        #expect(bytes.withUnsafeBytes { AbsoluteSendTime.read($0) } == 393_216)
    }

    @Test func packetWithoutTheExtensionIsLeftAlone() {
        var bytes: [UInt8] = []
        RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 1).marshal(into: &bytes)
        bytes += [1, 2, 3, 4, 5, 6, 7, 8, 9]
        let before = bytes
        bytes.withUnsafeMutableBytes { AbsoluteSendTime.stamp($0, at: .seconds(3)) }
        #expect(bytes == before)
        #expect(bytes.withUnsafeBytes { AbsoluteSendTime.read($0) } == nil)
    }

    @Test func differencesCrossThe64SecondWrap() {
        let before = AbsoluteSendTime.value(at: .seconds(63.9))
        let after = AbsoluteSendTime.value(at: .seconds(64.1))
        #expect(abs(AbsoluteSendTime.milliseconds(from: before, to: after) - 200) < 0.01)
        #expect(abs(AbsoluteSendTime.milliseconds(from: after, to: before) + 200) < 0.01)
    }

    /// Found by fuzzing: an extension block of no words holds no element, so the payload after it, whatever
    /// its first byte, is not stamped.
    @Test func emptyExtensionBlock_payloadIsNotStamped() {
        // V=2 X=1 CC=0, M=1 PT=96, seq 7, ts 0x701, SSRC 2, 0xBEDE with length 0, payload starting 0x32.
        var bytes: [UInt8] = [0x90, 0xE0, 0x00, 0x07, 0x00, 0x00, 0x07, 0x01, 0x00, 0x00, 0x00, 0x02,
                              0xBE, 0xDE, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x51, 0x00, 0x65, 0x01, 0x03]
        let before = bytes
        bytes.withUnsafeMutableBytes { AbsoluteSendTime.stamp($0, at: .seconds(1.5)) }
        #expect(bytes == before)
        #expect(bytes.withUnsafeBytes { AbsoluteSendTime.read($0) } == nil)
    }
}
