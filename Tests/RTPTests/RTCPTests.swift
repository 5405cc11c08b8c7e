import Testing
@testable import RTP

struct RTCPTests {
    static let receiverReport: [UInt8] = [
        0x81, 0xC9, 0x00, 0x07,  // v=2, p=0, RC=1, RR, len=7
        0x90, 0x2F, 0x9E, 0x2E,  // ssrc=0x902f9e2e
        0xBC, 0x5E, 0x9A, 0x40,  // report ssrc=0xbc5e9a40
        0x40, 0xFF, 0xFF, 0xFB,  // fraction lost=64, total lost=-5
        0x00, 0x01, 0x46, 0xE1,  // highest sequence: 1 cycle, seq 18145
        0x00, 0x00, 0x01, 0x11,  // jitter=273
        0x09, 0xF3, 0x64, 0x32,  // last SR
        0x00, 0x02, 0x4A, 0x79,  // delay since last SR
    ]

    static let report = ReceptionReport(
        ssrc: 0xBC5E_9A40, fractionLost: 64, totalLost: -5, highestSequence: 0x0001_46E1,
        jitter: 273, lastSR: 0x09F3_6432, delaySinceLastSR: 0x0002_4A79)

    static let senderReport: [UInt8] = [
        0x81, 0xC8, 0x00, 0x0C,  // v=2, p=0, RC=1, SR, len=12
        0x90, 0x2F, 0x9E, 0x2E,  // ssrc=0x902f9e2e
        0xDA, 0x8B, 0xD1, 0xFC,  // NTP seconds
        0xDD, 0xDD, 0xA0, 0x5A,  // NTP fraction
        0xAA, 0xF4, 0xED, 0xD5,  // RTP timestamp
        0x00, 0x00, 0x00, 0x01,  // packet count=1
        0x00, 0x00, 0x00, 0x02,  // octet count=2
    ] + Array(receiverReport[8...])

    static let pli: [UInt8] = [
        0x81, 0xCE, 0x00, 0x02,  // v=2, p=0, FMT=1, PSFB, len=2
        0x00, 0x00, 0x00, 0x01,  // sender ssrc=1
        0x90, 0x2F, 0x9E, 0x2E,  // media ssrc=0x902f9e2e
    ]

    static let fir: [UInt8] = [
        0x84, 0xCE, 0x00, 0x04,  // v=2, p=0, FMT=4, PSFB, len=4
        0x00, 0x00, 0x00, 0x01,  // sender ssrc=1
        0x00, 0x00, 0x00, 0x00,  // media ssrc=0
        0x90, 0x2F, 0x9E, 0x2E,  // FCI ssrc=0x902f9e2e
        0x2A, 0x00, 0x00, 0x00,  // seq nr=42, reserved
    ]

    static let nack: [UInt8] = [
        0x81, 0xCD, 0x00, 0x03,  // v=2, p=0, FMT=1, RTPFB, len=3
        0x00, 0x00, 0x00, 0x01,  // sender ssrc=1
        0x90, 0x2F, 0x9E, 0x2E,  // media ssrc=0x902f9e2e
        0x00, 0x0A, 0x00, 0x05,  // PID=10, BLP=0b101: 10, 11, 13 lost
    ]

    static let remb: [UInt8] = [
        0x8F, 0xCE, 0x00, 0x05,  // v=2, p=0, FMT=15, PSFB, len=5
        0x00, 0x00, 0x00, 0x01,  // sender ssrc=1
        0x00, 0x00, 0x00, 0x00,  // media ssrc=0
        0x52, 0x45, 0x4D, 0x42,  // "REMB"
        0x01, 0x16, 0xDC, 0x6C,  // num ssrc=1, exp=5, mantissa=187500: 6 Mbit/s
        0x90, 0x2F, 0x9E, 0x2E,  // ssrc=0x902f9e2e
    ]

    static let bye: [UInt8] = [
        0x81, 0xCB, 0x00, 0x02,  // v=2, p=0, SC=1, BYE, len=2
        0x90, 0x2F, 0x9E, 0x2E,  // ssrc=0x902f9e2e
        0x03, 0x62, 0x79, 0x65,  // reason length=3, "bye"
    ]

    @Test func receiverReport_fixture() throws {
        let parsed = try ReceiverReport.parse(Self.receiverReport)
        #expect(parsed == ReceiverReport(ssrc: 0x902F_9E2E, reports: [Self.report]))
        #expect(try parsed.marshal() == Self.receiverReport)
        #expect(parsed.size == Self.receiverReport.count)
        #expect(parsed.destinationSSRCs == [0xBC5E_9A40])
    }

    @Test func senderReport_fixture() throws {
        let parsed = try SenderReport.parse(Self.senderReport)
        let expected = SenderReport(
            ssrc: 0x902F_9E2E, ntpTime: 0xDA8B_D1FC_DDDD_A05A, rtpTime: 0xAAF4_EDD5,
            packetCount: 1, octetCount: 2, reports: [Self.report])
        #expect(parsed == expected)
        #expect(try parsed.marshal() == Self.senderReport)
        #expect(parsed.compactNTPTime == 0xD1FC_DDDD)
    }

    @Test func pli_fixture() throws {
        let parsed = try PictureLossIndication.parse(Self.pli)
        #expect(parsed == PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x902F_9E2E))
        #expect(try parsed.marshal() == Self.pli)
    }

    @Test func fir_fixture() throws {
        let parsed = try FullIntraRequest.parse(Self.fir)
        #expect(parsed == FullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 0x902F_9E2E, sequenceNumber: 42)]))
        #expect(try parsed.marshal() == Self.fir)
        #expect(parsed.destinationSSRCs == [0x902F_9E2E])
    }

    @Test func nack_fixture() throws {
        let parsed = try GenericNACK.parse(Self.nack)
        #expect(parsed.lostSequenceNumbers == [10, 11, 13])
        #expect(try parsed.marshal() == Self.nack)
        #expect(GenericNACK(senderSSRC: 1, mediaSSRC: 0x902F_9E2E, lostSequenceNumbers: [10, 11, 13]) == parsed)
    }

    @Test func nackPairs_spanWrapAndSplitPast16() {
        let lost: [UInt16] = [65534, 65535, 0, 15, 16, 40]
        let pairs = GenericNACK.pairs(for: lost)
        #expect(pairs == [
            .init(packetID: 65534, lostBitmask: 0b11),  // 65535 and 0
            .init(packetID: 15, lostBitmask: 0b1),      // 17 past 65534: a new pair
            .init(packetID: 40),
        ])
        #expect(pairs.flatMap(\.sequenceNumbers) == lost)
    }

    @Test func remb_fixture() throws {
        let parsed = try ReceiverEstimatedMaximumBitrate.parse(Self.remb)
        #expect(parsed == ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 6_000_000, ssrcs: [0x902F_9E2E]))
        #expect(try parsed.marshal() == Self.remb)
    }

    @Test func remb_roundsDownPastEighteenBits() throws {
        let remb = ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 2_500_001, ssrcs: [])
        let parsed = try ReceiverEstimatedMaximumBitrate.parse(try remb.marshal())
        #expect(parsed.bitrate <= 2_500_001)
        #expect(parsed.bitrate > 2_499_000)
    }

    @Test func bye_fixture() throws {
        let parsed = try Goodbye.parse(Self.bye)
        #expect(parsed == Goodbye(sources: [0x902F_9E2E], reason: "bye"))
        #expect(try parsed.marshal() == Self.bye)
        #expect(try Goodbye(sources: [1, 2]).marshal().count == 12)
    }

    @Test func compound_parsesEachPartAndKeepsUnknown() throws {
        let sdes: [UInt8] = [
            0x81, 0xCA, 0x00, 0x02,  // v=2, p=0, SC=1, SDES, len=2
            0x90, 0x2F, 0x9E, 0x2E,  // ssrc
            0x01, 0x01, 0x61, 0x00,  // CNAME, len=1, "a", end
        ]
        let packets = try RTCPPacket.parseCompound(Self.receiverReport + sdes + Self.pli + Self.remb + Self.nack + Self.fir + Self.bye)
        #expect(packets.count == 7)
        #expect(packets[1] == .unknown(packetType: 202, format: 1))
        #expect(packets[2] == .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x902F_9E2E)))
        guard case .receiverEstimatedMaximumBitrate(let remb) = packets[3] else {
            Issue.record("expected REMB")
            return
        }
        #expect(remb.bitrate == 6_000_000)

        var builder = RTCPCompoundBuilder()
        for packet in packets where packet.message != nil { try builder.add(packet) }
        #expect(builder.bytes == Self.receiverReport + Self.pli + Self.remb + Self.nack + Self.fir + Self.bye)
    }

    @Test func roundTrips_throughCompound() throws {
        let originals: [RTCPPacket] = [
            .senderReport(SenderReport(ssrc: 5, ntpTime: 1 << 40, rtpTime: 9, packetCount: 100, octetCount: 120_000, reports: [Self.report, Self.report])),
            .receiverReport(ReceiverReport(ssrc: 6)),
            .fullIntraRequest(FullIntraRequest(senderSSRC: 6, entries: [.init(ssrc: 5, sequenceNumber: 255), .init(ssrc: 7, sequenceNumber: 0)])),
            .genericNACK(GenericNACK(senderSSRC: 6, mediaSSRC: 5, lostSequenceNumbers: [1, 2, 3, 100])),
            .receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate(senderSSRC: 6, bitrate: 131_072, ssrcs: [5, 7])),
            .goodbye(Goodbye(sources: [5], reason: "end of share")),
        ]
        var builder = RTCPCompoundBuilder()
        for packet in originals { try builder.add(packet) }
        #expect(builder.bytes.count == originals.reduce(0) { $0 + $1.size })
        #expect(try RTCPPacket.parseCompound(builder.bytes) == originals)
    }

    @Test func malformed_throwsTypedErrors() {
        #expect(throws: RTCPError.tooShort(needed: 4, got: 3)) { try RTCPPacket.parseCompound([0x81, 0xCE, 0x00]) }
        #expect(throws: RTCPError.tooShort(needed: 4, got: 0)) { try RTCPPacket.parseCompound([]) }
        var wrongVersion = Self.pli
        wrongVersion[0] = 0x41
        #expect(throws: RTCPError.unsupportedVersion(1)) { try RTCPPacket.parseCompound(wrongVersion) }
        var longLength = Self.pli
        longLength[3] = 0x03
        #expect(throws: RTCPError.lengthMismatch(declared: 16, available: 12)) { try RTCPPacket.parseCompound(longLength) }
        // A single-packet parse wants the bytes to match the length exactly.
        #expect(throws: RTCPError.lengthMismatch(declared: 12, available: 16)) { try PictureLossIndication.parse(Self.pli + [0, 0, 0, 0]) }
        #expect(throws: RTCPError.wrongPacketType(expected: 206, got: 205)) { try PictureLossIndication.parse(Self.nack) }
        #expect(throws: RTCPError.wrongPacketType(expected: 1, got: 4)) { try PictureLossIndication.parse(Self.fir) }
        var badPadding = Self.pli
        badPadding[0] |= 0x20
        #expect(throws: RTCPError.invalidPadding(count: 0x2E)) { try RTCPPacket.parseCompound(badPadding) }
        var noIdentifier = Self.remb
        noIdentifier[12] = 0x58
        #expect(throws: RTCPError.missingREMBIdentifier) { try ReceiverEstimatedMaximumBitrate.parse(noIdentifier) }
        // An RR that claims a report block it does not have.
        #expect(throws: RTCPError.self) { try ReceiverReport.parse([0x81, 0xC9, 0x00, 0x01, 0, 0, 0, 1]) }
    }

    @Test func tooManyReports_refusedOnMarshal() {
        let rr = ReceiverReport(ssrc: 1, reports: Array(repeating: Self.report, count: 32))
        #expect(throws: RTCPError.tooManyItems(count: 32, limit: 31)) { try rr.marshal() }
    }

    @Test func muxedPacketKind_splitsRTPFromRTCP() {
        #expect(MuxedPacketKind.classify(Self.pli) == .rtcp)
        #expect(MuxedPacketKind.classify(Self.receiverReport) == .rtcp)
        #expect(MuxedPacketKind.classify([0x80, 0xE0, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]) == .rtp)
        #expect(MuxedPacketKind.classify([0x80, 0x60, 0x00, 0x01]) == .rtp)
        #expect(MuxedPacketKind.classify([0x00, 0x01, 0x00, 0x00]) == nil)  // STUN
        #expect(MuxedPacketKind.classify([0x80]) == nil)
    }
}
