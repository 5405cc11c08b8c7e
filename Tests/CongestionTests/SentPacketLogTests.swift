import Congestion
import Media
import RTP
import Testing

struct SentPacketLogTests {
    static func feedback(base: UInt16, deltas: [Int16?]) -> TransportFeedback {
        TransportFeedback(
            senderSSRC: 2, mediaSSRC: 1, baseSequenceNumber: base, referenceTime: 0, feedbackPacketCount: 0,
            receiveDeltas: deltas)
    }

    @Test func matchesFeedbackAcrossTheSequenceWrap() {
        // 65530 packets sent, then 65527…65535 and 0…9 reported on.
        var log = SentPacketLog()
        for i in 0..<65_546 { _ = log.record(size: 1000 + i % 7, at: .zero + .microseconds(Int64(i)), kind: .media) }
        let entries = log.match(Self.feedback(base: 65527, deltas: (0..<19).map { $0 % 4 == 3 ? nil : 4 }))
        #expect(entries.map(\.sequenceNumber) == Array(65_527...65_545))
        #expect(entries.filter { $0.arrival == nil }.map(\.sequenceNumber) == [65_530, 65_534, 65_538, 65_542])
        #expect(entries[0].sendTime == .zero + .microseconds(65_527))
    }

    @Test func reportedTwiceOrNeverSent_isSkipped() {
        var log = SentPacketLog()
        for _ in 0..<10 { _ = log.record(size: 1200, at: .zero, kind: .probe(cluster: 3)) }
        #expect(log.match(Self.feedback(base: 5, deltas: [1, 1])).map(\.kind) == [.probe(cluster: 3), .probe(cluster: 3)])
        #expect(log.match(Self.feedback(base: 5, deltas: [1, 1, 1, 1, 1, 1, 1])).map(\.sequenceNumber) == [7, 8, 9])
    }

    @Test func acknowledgedBitrate_isWhatArrivedOverTheWindow() {
        // 1200-byte packets arriving every 8 ms: 1.2 Mbit/s.
        var log = SentPacketLog()
        for i in 0..<100 { _ = log.record(size: 1200, at: .zero + .milliseconds(Int64(8 * i)), kind: .media) }
        #expect(log.acknowledgedBitrate == nil)
        _ = log.match(Self.feedback(base: 0, deltas: [Int16?](repeating: 32, count: 100)))
        #expect(abs(log.acknowledgedBitrate! - 1_200_000) < 1)
    }

    @Test func busyAcknowledgedBitrate_leavesOutWhatArrivedAcrossASendersPause() {
        // 1.2 Mbit/s arriving; then the sender paused for 300 ms and nothing arrived for 120 ms;
        // then 1.2 Mbit/s again for 112 ms. Over the quarter second of arrivals what arrived
        // averages about half of that, and the path, while it had something to carry, carried all.
        var log = SentPacketLog()
        for i in 0..<55 {
            let sent = Int64(8 * i) + (i >= 40 ? 300 : 0)
            _ = log.record(size: 1200, at: .zero + .milliseconds(sent), kind: .media)
        }
        let deltas: [Int16?] = [Int16?](repeating: 32, count: 40) + [480] + [Int16?](repeating: 32, count: 14)
        _ = log.match(Self.feedback(base: 0, deltas: deltas))
        let all = try! #require(log.acknowledgedBitrate)
        let busy = try! #require(log.busyAcknowledgedBitrate)
        #expect(all < 700_000, "\(all)")
        #expect(abs(busy - 1_200_000) < 1, "\(busy)")
        // A sender that pauses between every packet leaves too little to say.
        var sparse = SentPacketLog()
        for i in 0..<6 { _ = sparse.record(size: 1200, at: .zero + .milliseconds(Int64(300 * i)), kind: .media) }
        _ = sparse.match(Self.feedback(base: 0, deltas: [Int16?](repeating: 480, count: 6)))
        #expect(sparse.acknowledgedBitrate != nil)
        #expect(sparse.busyAcknowledgedBitrate == nil)
        // Frames at 10 fps are the sender's own pace, not a pause: nothing is left out.
        var paced = SentPacketLog()
        for i in 0..<40 {
            let sent = Int64(100 * (i / 4) + 8 * (i % 4))
            _ = paced.record(size: 1200, at: .zero + .milliseconds(sent), kind: .media)
        }
        let frames: [Int16?] = (0..<40).map { $0 % 4 == 0 && $0 > 0 ? 304 : 32 }
        _ = paced.match(Self.feedback(base: 0, deltas: frames))
        #expect(paced.busyAcknowledgedBitrate == paced.acknowledgedBitrate)
    }

    @Test func sentBitrate_isEveryKindSentOverTheWindow() {
        // A 1200-byte packet every 10 ms for a second, media and probes alike: 960 kbit/s over the
        // last quarter second; none sent in the quarter second after the last.
        var log = SentPacketLog()
        for i in 0..<100 {
            _ = log.record(size: 1200, at: .zero + .milliseconds(Int64(10 * i)), kind: i % 2 == 0 ? .media : .probe(cluster: 1))
        }
        #expect(abs(log.sentBitrate(over: .milliseconds(250), at: .zero + .milliseconds(995)) - 960_000) < 1)
        #expect(log.sentBitrate(over: .milliseconds(250), at: .zero + .milliseconds(1300)) == 0)
    }

    @Test func ringForgetsTheOldest() {
        var log = SentPacketLog(capacity: 16)
        for _ in 0..<40 { _ = log.record(size: 1200, at: .zero, kind: .media) }
        #expect(log.match(Self.feedback(base: 0, deltas: [Int16?](repeating: 1, count: 40))).map(\.sequenceNumber) == Array(24..<40))
    }

    @Test func whetherAPacketArrived_isKnownOnlyOnceFeedbackTold() {
        // 65540 packets sent, so the numbers asked about have wrapped; feedback on 65530…65535
        // says 65532 was lost.
        var log = SentPacketLog()
        for _ in 0..<65_540 { _ = log.record(size: 1200, at: .zero, kind: .media) }
        #expect(log.arrived(65_531) == nil)
        _ = log.match(Self.feedback(base: 65_530, deltas: [4, 4, nil, 4, 4, 4]))
        #expect(log.arrived(65_531) == true)
        #expect(log.arrived(65_532) == false)
        #expect(log.arrived(1) == nil, "not told of yet")
        #expect(log.arrived(9) == nil, "never sent")
    }

    @Test func aPacketFeedbackPassedOver_didNotArrive() {
        // Feedback on 0…4, then feedback that begins at 6: 5 is told of by neither. 12 is sent
        // after the newest packet told of, so it may still be on its way.
        var log = SentPacketLog()
        for _ in 0..<13 { _ = log.record(size: 1200, at: .zero, kind: .media) }
        _ = log.match(Self.feedback(base: 0, deltas: [4, 4, 4, 4, 4]))
        #expect(log.arrived(5) == nil, "nothing after it told of yet")
        _ = log.match(Self.feedback(base: 6, deltas: [4, 4, nil, 4, 4]))
        #expect(log.arrived(5) == false)
        #expect(log.arrived(8) == false)
        #expect(log.arrived(10) == true)
        #expect(log.arrived(11) == nil)
        #expect(log.arrived(12) == nil)
    }

    @Test func bytesInFlight_areThoseSentAfterTheNewestToldOf_withinTheHorizon() {
        // 20 packets of 1000 bytes, one every 10 ms. Feedback on 0…9, the last lost: 10…19 are on
        // their way, whatever became of 9.
        var log = SentPacketLog()
        for i in 0..<20 { _ = log.record(size: 1000, at: .zero + .milliseconds(Int64(10 * i)), kind: .media) }
        #expect(log.bytesInFlight(sentWithin: .seconds(1), at: .zero + .milliseconds(200)) == 20_000)
        _ = log.match(Self.feedback(base: 0, deltas: [Int16?](repeating: 40, count: 9) + [nil]))
        #expect(log.bytesInFlight(sentWithin: .seconds(1), at: .zero + .milliseconds(200)) == 10_000)
        // Past the horizon a packet no feedback told of no longer counts: of 100…190 ms, those
        // at 150…190 are within 140 ms of 290.
        #expect(log.bytesInFlight(sentWithin: .milliseconds(140), at: .zero + .milliseconds(290)) == 5_000)
    }
}
