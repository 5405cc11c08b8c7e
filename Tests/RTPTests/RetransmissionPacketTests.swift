import Testing
@testable import RTP

/// RTX (RFC 4588 §4) byte for byte.
struct RetransmissionPacketTests {
    /// Version 2, extension bit, marker, PT 96, sequence 0x1234, timestamp
    /// 0x0A0B0C0D, SSRC 0x11223344; a one-byte extension block of one word
    /// (abs-send-time, id 3); payload 0xAA 0xBB 0xCC.
    static let original: [UInt8] = [
        0x90, 0xE0, 0x12, 0x34, 0x0A, 0x0B, 0x0C, 0x0D, 0x11, 0x22, 0x33, 0x44,
        0xBE, 0xDE, 0x00, 0x01, 0x32, 0x01, 0x02, 0x03,
        0xAA, 0xBB, 0xCC,
    ]

    @Test func wrap_putsTheOriginalNumberAheadOfThePayload_onTheRTXStream() throws {
        var rtx: [UInt8] = []
        let osn = Self.original.withUnsafeBytes {
            RetransmissionPacket.wrap($0, payloadType: 97, ssrc: 0x55667788, sequenceNumber: 0xFFFF, into: &rtx)
        }
        #expect(osn == 0x1234)
        #expect(rtx == [
            0x90, 0xE1, 0xFF, 0xFF, 0x0A, 0x0B, 0x0C, 0x0D, 0x55, 0x66, 0x77, 0x88,
            0xBE, 0xDE, 0x00, 0x01, 0x32, 0x01, 0x02, 0x03,
            0x12, 0x34, 0xAA, 0xBB, 0xCC,
        ])
    }

    @Test func unwrap_givesBackTheOriginal() throws {
        var rtx: [UInt8] = []
        _ = Self.original.withUnsafeBytes {
            RetransmissionPacket.wrap($0, payloadType: 97, ssrc: 0x55667788, sequenceNumber: 7, into: &rtx)
        }
        let back = try rtx.withUnsafeBytes { try RetransmissionPacket.unwrap($0, payloadType: 96, ssrc: 0x11223344) }
        #expect(back == Self.original)
    }

    @Test func paddingOnly_isNotWrapped_andPaddingIsLeftOut() {
        // A probe's padding: nothing to repair.
        let padding: [UInt8] = [0xA0, 0x60, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 4]
        var out: [UInt8] = []
        #expect(padding.withUnsafeBytes { RetransmissionPacket.wrap($0, payloadType: 97, ssrc: 9, sequenceNumber: 1, into: &out) } == nil)
        #expect(out.isEmpty)
        // A payload with two bytes of padding after it: the RTX packet carries the payload alone.
        let padded: [UInt8] = [0xA0, 0x60, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2, 0xAA, 0x00, 0x02]
        _ = padded.withUnsafeBytes { RetransmissionPacket.wrap($0, payloadType: 97, ssrc: 9, sequenceNumber: 1, into: &out) }
        #expect(out == [0x80, 0x61, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 9, 0x00, 0x02, 0xAA])
    }

    @Test func unwrap_refusesAPacketTooShortForItsOriginalNumber() {
        let short: [UInt8] = [0x80, 0x61, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 9, 0x00]
        #expect(throws: RTPError.tooShort(needed: 14, got: 13)) {
            try short.withUnsafeBytes { try RetransmissionPacket.unwrap($0, payloadType: 96, ssrc: 1) }
        }
    }
}
