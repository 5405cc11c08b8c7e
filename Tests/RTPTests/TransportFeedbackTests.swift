import Media
import Testing
@testable import RTP

struct TransportFeedbackTests {
    static let ssrcWords: [UInt8] = [
        0x00, 0x00, 0x00, 0x01,  // sender ssrc=1
        0x90, 0x2F, 0x9E, 0x2E,  // media ssrc=0x902f9e2e
    ]

    static let runLengthReceived: [UInt8] = [
        0xAF, 0xCD, 0x00, 0x06,  // v=2, p=1, FMT=15, RTPFB, len=6
    ] + ssrcWords + [
        0x00, 0x64, 0x00, 0x03,  // base seq=100, status count=3
        0x00, 0x00, 0x01, 0x00,  // reference time=1 (64 ms), fb count=0
        0x20, 0x03, 0x04, 0x01,  // run: small delta ×3 | deltas 4 (1 ms), 1 (250 µs)
        0x02, 0x00, 0x00, 0x03,  // delta 2 (500 µs) | padding, pad count=3
    ]

    static let runLengthLostAcrossWrap: [UInt8] = [
        0xAF, 0xCD, 0x00, 0x07,  // v=2, p=1, FMT=15, RTPFB, len=7
    ] + ssrcWords + [
        0xFF, 0xFA, 0x00, 0x14,  // base seq=65530, status count=20
        0xFF, 0xFF, 0xFF, 0x07,  // reference time=-1 (-64 ms), fb count=7
        0x00, 0x0F, 0x20, 0x05,  // run: not received ×15 | run: small delta ×5
        0x08, 0x08, 0x08, 0x08,  // deltas 8 (2 ms) ×4
        0x08, 0x00, 0x00, 0x03,  // delta 8 | padding, pad count=3
    ]

    static let oneBitVector: [UInt8] = [
        0x8F, 0xCD, 0x00, 0x07,  // v=2, p=0, FMT=15, RTPFB, len=7
    ] + ssrcWords + [
        0x00, 0x01, 0x00, 0x0E,  // base seq=1, status count=14
        0x00, 0x00, 0x10, 0x01,  // reference time=16 (1.024 s), fb count=1
        0xAC, 0xF7, 0x01, 0x02,  // 1-bit vector 1011 0011 1101 11 | deltas 1, 2
        0x03, 0x04, 0x05, 0x06,  // deltas 3…6
        0x07, 0x08, 0x09, 0x0A,  // deltas 7…10
    ]

    static let twoBitVector: [UInt8] = [
        0xAF, 0xCD, 0x00, 0x07,  // v=2, p=1, FMT=15, RTPFB, len=7
    ] + ssrcWords + [
        0x00, 0xC8, 0x00, 0x07,  // base seq=200, status count=7
        0x00, 0x00, 0x02, 0x02,  // reference time=2 (128 ms), fb count=2
        0xD8, 0x94, 0x10, 0x04,  // 2-bit vector small, large, lost, large, small, small, lost | delta 16, large high byte
        0x00, 0xFF, 0xFC, 0x01,  // large delta 1024 (256 ms) low byte | large delta -4 (-1 ms) | delta 1
        0x02, 0x00, 0x00, 0x03,  // delta 2 | padding, pad count=3
    ]

    static func feedback(_ base: UInt16, _ reference: Int32, _ count: UInt8, _ deltas: [Int16?]) -> TransportFeedback {
        TransportFeedback(
            senderSSRC: 1, mediaSSRC: 0x902F_9E2E, baseSequenceNumber: base, referenceTime: reference,
            feedbackPacketCount: count, receiveDeltas: deltas)
    }

    static let fixtures: [(bytes: [UInt8], packet: TransportFeedback)] = [
        (runLengthReceived, feedback(100, 1, 0, [4, 1, 2])),
        (runLengthLostAcrossWrap, feedback(65530, -1, 7, [Int16?](repeating: nil, count: 15) + [8, 8, 8, 8, 8])),
        (oneBitVector, feedback(1, 16, 1, [1, nil, 2, 3, nil, nil, 4, 5, 6, 7, nil, 8, 9, 10])),
        (twoBitVector, feedback(200, 2, 2, [16, 1024, nil, -4, 1, 2, nil])),
    ]

    @Test(arguments: 0..<fixtures.count)
    func fixture_parsesAndMarshalsByteExact(index: Int) throws {
        let (bytes, expected) = Self.fixtures[index]
        let parsed = try TransportFeedback.parse(bytes)
        #expect(parsed == expected)
        #expect(try parsed.marshal() == bytes)
        #expect(parsed.size == bytes.count)
        #expect(try RTCPPacket.parseCompound(bytes) == [.transportFeedback(expected)])
    }

    @Test func results_sayArrivalFromTheReferenceTime() throws {
        let run = try TransportFeedback.parse(Self.runLengthReceived).packetResults
        #expect(run == [
            .init(sequenceNumber: 100, arrival: .microseconds(65_000)),
            .init(sequenceNumber: 101, arrival: .microseconds(65_250)),
            .init(sequenceNumber: 102, arrival: .microseconds(65_750)),
        ])
        let wrapped = try TransportFeedback.parse(Self.runLengthLostAcrossWrap).packetResults
        #expect(wrapped.map(\.sequenceNumber) == Array(65530...65535) + Array(0...13))
        #expect(wrapped.prefix(15).allSatisfy { $0.arrival == nil })
        #expect(wrapped.suffix(5).map(\.arrival) == [-62, -60, -58, -56, -54].map { .milliseconds($0) })
        let vector = try TransportFeedback.parse(Self.twoBitVector).packetResults
        #expect(vector.map(\.arrival) == [
            .microseconds(132_000), .microseconds(388_000), nil, .microseconds(387_000),
            .microseconds(387_250), .microseconds(387_750), nil,
        ])
    }

    @Test func builder_roundTripsAcrossTheSequenceWrap() throws {
        // 65527…65535 then 0…9, every third lost, one late packet arriving before its predecessor.
        let sequence = Array(UInt16(65527)...UInt16.max) + Array(UInt16(0)...9)
        let start = Instant.seconds(10)
        let arrivals = sequence.enumerated().map { index, seq in
            TransportFeedbackBuilder.Arrival(
                sequenceNumber: seq,
                time: index % 3 == 2 ? nil : start + .microseconds(index == 7 ? 1_000 : 5_000 * index + 300))
        }
        var builder = TransportFeedbackBuilder(senderSSRC: 1, mediaSSRC: 2)
        let packets = builder.build(arrivals)
        #expect(packets.count == 1)
        let parsed = try TransportFeedback.parse(try packets[0].marshal())
        #expect(parsed == packets[0])
        #expect(parsed.baseSequenceNumber == 65527)
        let results = parsed.packetResults
        #expect(results.map(\.sequenceNumber) == sequence)
        for (result, arrival) in zip(results, arrivals) {
            // Each arrival comes back to the 250 µs tick below it.
            let expected = arrival.time.map { Duration.microseconds($0.nanoseconds / 250_000 * 250) }
            #expect(result.arrival == expected)
        }
        #expect(parsed.receiveDeltas.contains { ($0 ?? 0) < 0 })
    }

    @Test func builder_fillsGapsAsLostAndIgnoresStragglers() throws {
        // 1.024 s is a whole reference tick (16 × 64 ms), so the first delta is 0.
        let t = Instant(nanoseconds: 1_024_000_000)
        var builder = TransportFeedbackBuilder(senderSSRC: 1, mediaSSRC: 2)
        let packets = builder.build([
            .init(sequenceNumber: 10, time: t),
            .init(sequenceNumber: 13, time: t + .milliseconds(3)),
            .init(sequenceNumber: 12, time: t + .milliseconds(4)),
            .init(sequenceNumber: 14, time: t + .milliseconds(5)),
        ])
        #expect(packets.map(\.receiveDeltas) == [[0, nil, nil, 12, 8]])
    }

    @Test func builder_splitsBySizeAndLongGaps_countingFeedbacks() throws {
        let t = Instant.seconds(3)
        var arrivals = (0..<3000).map { TransportFeedbackBuilder.Arrival(sequenceNumber: UInt16($0), time: t + .milliseconds($0)) }
        // Nine seconds of silence do not fit a 16-bit delta (8.19 s).
        arrivals.append(.init(sequenceNumber: 3000, time: t + .seconds(12)))
        var builder = TransportFeedbackBuilder(senderSSRC: 1, mediaSSRC: 2, maxPacketSize: 500)
        let packets = builder.build(arrivals)
        #expect(packets.count > 6)
        #expect(packets.allSatisfy { $0.size <= 500 })
        #expect(packets.map(\.feedbackPacketCount) == (0..<packets.count).map(UInt8.init))
        #expect(packets.last?.receiveDeltas.count == 1)
        var unwrapper = FeedbackReferenceTimeUnwrapper()
        let all = packets.flatMap { unwrapper.results($0) }
        #expect(all.map(\.sequenceNumber) == (0...3000).map(UInt16.init))
        #expect(all.last?.arrival == .seconds(15))
        #expect(all[2999].arrival == .milliseconds(5999))
        #expect(builder.build([.init(sequenceNumber: 1, time: t)]).first?.feedbackPacketCount == UInt8(packets.count))
    }

    @Test func referenceTime_unwrapsAcrossThe24BitWrap() throws {
        // The reference time wraps at 2^24 × 64 ms (about 12.4 days): feedback
        // just before and just after must stay 100 ms apart.
        let wrap = Int64(1) << 23
        let before = Instant(nanoseconds: (wrap - 1) * 64_000_000 + 10_000_000)
        var builder = TransportFeedbackBuilder(senderSSRC: 1, mediaSSRC: 2)
        let first = try TransportFeedback.parse(try builder.build([.init(sequenceNumber: 1, time: before)])[0].marshal())
        let second = try TransportFeedback.parse(
            try builder.build([.init(sequenceNumber: 2, time: before + .milliseconds(100))])[0].marshal())
        #expect(first.referenceTime == Int32(wrap - 1))
        #expect(second.referenceTime == -Int32(wrap))
        var unwrapper = FeedbackReferenceTimeUnwrapper()
        let a = unwrapper.results(first)[0].arrival!
        let b = unwrapper.results(second)[0].arrival!
        #expect(b - a == .milliseconds(100))
        // A feedback that comes late moves back, not forward a whole wrap.
        #expect(unwrapper.unwrap(Int32(wrap - 1)) == wrap - 1)
        #expect(unwrapper.unwrap(-Int32(wrap) + 1) == wrap + 1)
    }

    @Test func malformed_rejectedWithTypedErrors() {
        let truncated = Array(Self.oneBitVector.prefix(28)).replacing([0x00, 0x07], with: [0x00, 0x06], maxReplacements: 1)
        #expect(throws: RTCPError.tooShort(needed: 29, got: 28)) { try TransportFeedback.parse(truncated) }

        var countTooBig = Self.oneBitVector
        countTooBig[14] = 0xFF
        countTooBig[15] = 0xFF
        // The delta bytes read as run-length chunks: 14 + 258 + 772 + 1286 + 1800 + 2314 statuses.
        #expect(throws: RTCPError.statusCountExceedsChunks(claimed: 65535, described: 6444)) {
            try TransportFeedback.parse(countTooBig)
        }
        var reservedRun = Self.runLengthReceived
        reservedRun[20] = 0x60
        #expect(throws: RTCPError.reservedPacketStatus) { try TransportFeedback.parse(reservedRun) }
        var reservedVector = Self.twoBitVector
        reservedVector[21] = 0x97
        #expect(throws: RTCPError.reservedPacketStatus) { try TransportFeedback.parse(reservedVector) }
        var badPadding = Self.runLengthReceived
        badPadding[27] = 0x40
        #expect(throws: RTCPError.invalidPadding(count: 0x40)) { try TransportFeedback.parse(badPadding) }
        var nack = Self.oneBitVector
        nack[0] = 0x81
        #expect(throws: RTCPError.wrongPacketType(expected: 15, got: 1)) { try TransportFeedback.parse(nack) }
        #expect(throws: RTCPError.tooShort(needed: 20, got: 16)) {
            try TransportFeedback.parse([0x8F, 0xCD, 0x00, 0x03] + Array(Self.oneBitVector[4..<16]))
        }
        // Every truncation with a matching length field fails cleanly.
        for words in 2..<7 {
            var cut = Array(Self.twoBitVector.prefix(4 * words + 4))
            cut[0] = 0x8F
            cut[3] = UInt8(words)
            #expect(throws: RTCPError.self) { try TransportFeedback.parse(cut) }
        }
    }

    @Test func marshal_refusesMoreStatusesThanTheCountField() {
        let huge = Self.feedback(0, 0, 0, [Int16?](repeating: nil, count: 65536))
        #expect(throws: RTCPError.tooManyItems(count: 65536, limit: 65535)) { try huge.marshal() }
    }
}
