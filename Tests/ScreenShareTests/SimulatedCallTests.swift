import Congestion
import Media
import RTP
import SRTP
import Sending
import Testing
@testable import ScreenShare

/// The real sender against a bottleneck and a receiver's feedback, all on
/// one manual clock (docs/behaviour.md §7.4–§7.7): what the estimate, the
/// pacer and the keyframe rules do together, in simulated seconds.
@Suite(.serialized) struct SimulatedCallTests {
    /// A `tc tbf rate 1.5mbit latency 200ms` uplink with 100 ms of round trip.
    static func uplink(_ bitsPerSecond: Double = 1_500_000, loss: Double = 0) -> SimulatedLink {
        SimulatedLink(bitsPerSecond: bitsPerSecond, queueLimit: .delay(.milliseconds(200)), propagationDelay: .milliseconds(50),
                      jitter: .milliseconds(1), lossRate: loss, seed: 5)
    }

    static func megabits(_ samples: [(at: Double, status: ShareStatus)]) -> String {
        samples.map { "\(Int($0.at * 10) / 10):\($0.status.targetBitrate / 1000)" }.joined(separator: " ")
    }

    /// What a share does in its first 3 s, where a start from the cap may overrun the link, and
    /// then for `rest`: its status samples, and the packets the bottleneck dropped by 3 s, and
    /// dropped and sent after.
    static func sampleAfterTheStart(_ share: SimulatedShare, for rest: Duration)
        -> (samples: [(at: Double, status: ShareStatus)], droppedBy3: Int, droppedAfter: Int, sentAfter: Int) {
        var samples = share.sample(for: .seconds(3))
        let droppedBy3 = share.peer!.droppedAtQueue
        let sentBy3 = share.peer!.packets.count
        samples += share.sample(for: rest)
        return (samples, droppedBy3, share.peer!.droppedAtQueue - droppedBy3, share.peer!.packets.count - sentBy3)
    }

    @Test func transportWideFeedback_targetConvergesToA1500kLinkWithin5Seconds() throws {
        // 0 s: 300 kbit/s, probes out; by 0.5 s near the link. A 720p screen
        // in motion offers about the link. From 5 s to 8 s what is sent
        // averages 85 % of 1.5 Mbit/s or more (1.31–1.39 Mbit/s over runs on
        // a busy machine; 1.12 without making up the encoder's shortfall) and
        // no more than a tenth over it, with no standing queue of 100 ms.
        // The target stands above what is sent by what the encoder leaves for
        // headers and retransmissions (it aims at 0.85 of the target), within
        // the delay estimate's saw: a back-off to what was delivered, growth
        // until what is sent fills the link and the queue says so.
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: Self.uplink(),
                                       feedback: .transportWide, transportWide: true)
        defer { share.stop() }
        let samples = share.sample(for: .seconds(8))
        let settled = samples.filter { $0.at >= 5 }
        let targets = settled.map { Double($0.status.targetBitrate) }
        let sent = settled.map { Double($0.status.bitrate) }.reduce(0, +) / Double(settled.count)
        #expect((0.85 * 1_500_000...1.1 * 1_500_000).contains(sent), "sent \(Int(sent)): \(Self.megabits(samples))")
        #expect(targets.allSatisfy { (1_200_000...2_000_000).contains($0) }, "\(Self.megabits(samples))")
        #expect(samples.first { $0.at >= 0.5 }.map { $0.status.targetBitrate >= 1_200_000 } ?? false, "\(Self.megabits(samples))")
        #expect(samples.first!.status.feedback == .transportWide)
        let start = share.peer!.packets.first!.sendTime
        let late = share.peer!.packets.filter { $0.sendTime - start >= .seconds(3) }
        let queued = late.filter { packet in packet.arrival.map { $0 - packet.sendTime > .milliseconds(150) } ?? false }
        #expect(queued.count * 20 <= late.count, "\(queued.count) of \(late.count) packets queued over 100 ms")
    }

    @Test func nacksAlone_bringTheCapBelowTheLinkWithinSeconds() throws {
        // No transport-wide feedback, no RR, no REMB: the receiver only NACKs.
        // 0 s: the 4 Mbit/s cap into 1.5 Mbit/s; each window of NACKs backs
        // off to what got through, no more than half at once. The first
        // halving, about 1 s in, lands on 2 Mbit/s, of which the encoder sends
        // about the link: the queue fills slowly and drops 4–5 s in, and the
        // second halving puts the target under the link by 5.5 s. (When the
        // first keyframe had the cap's size, its burst had filled the queue
        // ahead of that, and the second halving came 1.8–2.7 s in.) What is
        // sent from 3 s on stays at the link, and that one overflow is all
        // that is dropped after 3 s: 2–4 % of the packets.
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: Self.uplink(), feedback: .nacksOnly)
        defer { share.stop() }
        let (samples, _, droppedAfter, sentAfter) = Self.sampleAfterTheStart(share, for: .seconds(5))
        #expect(samples.first!.status.targetBitrate == 4_000_000)
        #expect(samples.first { $0.at >= 5.5 }.map { $0.status.targetBitrate <= 1_500_000 } ?? false, "\(Self.megabits(samples))")
        let sent = samples.filter { $0.at >= 3 }.map { Double($0.status.bitrate) }
        #expect(sent.reduce(0, +) / Double(sent.count) <= 1_530_000, "sent \(sent.map { Int($0 / 1000) })")
        #expect(Double(droppedAfter) < 0.05 * Double(sentAfter), "\(droppedAfter) of \(sentAfter) dropped after 3 s: \(Self.megabits(samples))")
        #expect(samples.last!.status.limitation == .bandwidth)
        #expect(samples.last!.status.feedback == .receiverReports)
    }

    @Test func nacksByTheClock_behindAFillingQueue_backOffBeforeItOverflows() throws {
        // A receiver that asks by its clock for each packet the queue holds back, as rtpbin does
        // without transport-cc. After the start from the cap, the estimate grows back into the
        // link about 12 s in; the NACKs' waits grow with the queue, and the estimate backs off
        // under what the path carries before a window of loss could say so. From 3 s to 15 s the
        // tbf drops under 2 % of the packets: 1.6 % with the back-off (30 packets, all in the
        // 0.2 s before the first NACK of the overrun came back), 2.8 % without it.
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: Self.uplink(),
                                       feedback: .nacksByTheClock)
        defer { share.stop() }
        let (samples, _, dropped, sent) = Self.sampleAfterTheStart(share, for: .seconds(12))
        #expect(Double(dropped) < 0.02 * Double(sent), "\(dropped) of \(sent) dropped after 3 s: \(Self.megabits(samples))")
    }

    @Test func nacksAlone_under2PercentRandomLoss_keepAtLeast70PercentOfTheLink() throws {
        // 2 % of packets lost at random from the start, the receiver NACKs
        // each: about every other window reads 2 % or more. Held there at
        // what got through, and growing at full pace after it, the target
        // from 6 s to 12 s averages at least 70 % of the link. (Measured
        // against the encoder's output, which aims at 0.85 of the target, and
        // slowed after each such window, it sank to a third of the link.)
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: Self.uplink(loss: 0.02),
                                       feedback: .nacksOnly)
        defer { share.stop() }
        let samples = share.sample(for: .seconds(12))
        let settled = samples.filter { $0.at >= 6 }.map { Double($0.status.targetBitrate) }
        let mean = settled.reduce(0, +) / Double(settled.count)
        #expect(mean >= 0.7 * 1_500_000, "mean \(Int(mean)): \(Self.megabits(samples))")
        #expect(share.peer!.lostAtRandom > 0, "the loss came")
    }

    @Test(arguments: [SimulatedPeer.Feedback.nacksAhead, .nacksJustHad])
    func nacksByTheClock_onAWideLink_countAsNoLoss(feedback: SimulatedPeer.Feedback) throws {
        // A receiver that NACKs by the clock, nothing lost: with `nacksAhead`
        // two of each three numbers it names are not sent yet, and the third
        // is a packet it had; with `nacksJustHad` it names the last two of
        // each frame moments after they left. Counted as loss, those it had
        // would read as a tenth or a sixth of all sent and halve the target
        // again and again; as guesses, nothing is lost, the receiver is marked
        // as one that asks by the clock, and the target holds at the 4 Mbit/s
        // cap on a 10 Mbit/s link.
        let link = SimulatedLink(bitsPerSecond: 10_000_000, queueLimit: .delay(.milliseconds(200)),
                                 propagationDelay: .milliseconds(5), seed: 5)
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: link, feedback: feedback)
        defer { share.stop() }
        let samples = share.sample(for: .seconds(6))
        #expect(samples.allSatisfy { $0.status.targetBitrate >= 3_000_000 }, "\(Self.megabits(samples))")
        #expect(share.connection.diagnosticLines.contains { $0.contains("NACKs ask ahead") },
                "\(share.connection.diagnosticLines.joined(separator: "\n"))")
    }

    @Test func nacksForPacketsThatArrived_withTransportWideFeedback_areNotResent() throws {
        // rtpbin with transport-cc asks by its clock for packets a growing queue holds, and its
        // NACKs come long after they left: here each frame's end asks for a number 20 before,
        // which arrived. Transport-wide feedback says so, at once or a little later: nothing is
        // resent (taken for lost, each would be, a retransmission a frame).
        let link = SimulatedLink(bitsPerSecond: 10_000_000, queueLimit: .delay(.milliseconds(200)),
                                 propagationDelay: .milliseconds(5), seed: 5)
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: link,
                                       feedback: .transportWideNackingWhatItHad, transportWide: true)
        defer { share.stop() }
        share.run(for: .seconds(4))
        let media = try #require(share.peer?.packets).filter { $0.ssrc == share.connection.ssrc && !$0.padding }
        let numbers = media.map(\.sequenceNumber)
        #expect(Set(numbers).count == numbers.count, "\(numbers.count - Set(numbers).count) packets were resent")
        let lines = share.connection.diagnosticLines.joined(separator: "\n")
        let told = lines.firstMatch(of: /after they arrived (\d+)/).flatMap { Int($0.1) } ?? 0
        #expect(told >= 60, "\(lines)")
    }

    @Test func transportWideNegotiatedButNeverSent_nacksOfTheFirstSecondAreStillAnswered() throws {
        // The receiver negotiated transport-wide feedback and only ever NACKs. For the first
        // second a NACKed packet waits for that feedback to say whether it arrived; once the
        // sender knows none will come, each waiting one is resent (the receiver asks only once).
        let share = try SimulatedShare(scenario: .motion, width: 640, height: 360, link: Self.uplink(2_000_000, loss: 0.05),
                                       feedback: .nacksOnly, transportWide: true)
        defer { share.stop() }
        share.run(for: .seconds(3))
        let media = try #require(share.peer?.packets).filter { $0.ssrc == share.connection.ssrc && !$0.padding }
        let start = try #require(media.first).sendTime
        let lostEarly = media.filter { $0.arrival == nil && $0.sendTime - start < .milliseconds(800) }
        let sentTimes = Dictionary(grouping: media, by: \.sequenceNumber).mapValues(\.count)
        #expect(lostEarly.count >= 2, "\(lostEarly.count) lost in the first 0.8 s")
        let unanswered = lostEarly.filter { (sentTimes[$0.sequenceNumber] ?? 0) < 2 }.map(\.sequenceNumber)
        #expect(unanswered.isEmpty, "never resent: \(unanswered) of \(lostEarly.count)")
        #expect(share.connection.status(capturedFPS: 30, watchdog: "").feedback == .receiverReports)
    }

    @Test func nacksForAThirdOfTheLoss_fromTheCap_theQueueHasDrainedBy3Seconds() throws {
        // rtpbin behind a full tbf asks for one lost packet in three: its NACKs
        // say a 4 Mbit/s start into 1.5 Mbit/s loses a fifth, not the 60 % the
        // queue drops. Each overrun halves the estimate, so by 3 s it is under
        // the link, the queue drains, and from 3 s the bottleneck drops
        // almost nothing: a viewer sees no freeze after the first seconds.
        // (Each back-off's 0.3 off took three of them, to 4 s, 32 packets dropped after 3 s.)
        let share = try SimulatedShare(scenario: .motion, width: 1920, height: 1080, link: Self.uplink(), feedback: .nacksForAThird)
        defer { share.stop() }
        let (samples, droppedBy3, droppedAfter, sentAfter) = Self.sampleAfterTheStart(share, for: .seconds(5))
        #expect(droppedBy3 > 0, "the start overran the link")
        #expect(samples.first { $0.at >= 3 }.map { $0.status.targetBitrate <= 1_500_000 } ?? false, "\(Self.megabits(samples))")
        #expect(Double(droppedAfter) < 0.01 * Double(sentAfter), "\(droppedAfter) of \(sentAfter) dropped after 3 s: \(Self.megabits(samples))")
    }

    /// NACKs only, 720p into 1.5 Mbit/s: by 5 s the estimate is back under the link. From 4 s the
    /// receiver asks for a keyframe every 500 ms (as rtpbin does once the round trip passes its
    /// latency and it stops NACKing); the targets from 6 s to 12 s, a second apart. (At 5 s the
    /// NACKs for the start's overrun may still be coming, and a request after a NACK holds nothing.)
    private static func targets(askingForKeyframes: Bool) throws -> [Int] {
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: Self.uplink(), feedback: .nacksOnly)
        defer { share.stop() }
        share.run(for: .seconds(4))
        var targets: [Int] = []
        for i in 0..<16 {
            if askingForKeyframes { share.peer!.sendPLI(ssrc: share.connection.ssrc) }
            share.run(for: .milliseconds(500))
            if i % 2 == 1, i > 1 { targets.append(share.connection.status(capturedFPS: 30, watchdog: "watching").targetBitrate) }
        }
        return targets
    }

    @Test func keyframesAskedForAgain_stopTheLossEstimatesGrowth() throws {
        // Each request comes more than a round trip and 250 ms after the keyframe before it left:
        // that keyframe was lost, so the NACKs' silence is no window without loss.
        let silent = try Self.targets(askingForKeyframes: false)
        let asking = try Self.targets(askingForKeyframes: true)
        #expect(silent.max()! > silent.first! * 11 / 10, "without the requests it grows: \(silent)")
        #expect(asking.allSatisfy { $0 <= asking.first! }, "with them it holds: \(asking)")
    }

    @Test func underLossWithRTX_nacksAreAnsweredOnTheRTXStream_andNoNumberIsEverSentTwice() throws {
        // 3 % random loss and RTX negotiated (payload type 97): each NACKed
        // packet goes again as a new packet of the RTX stream, under its own
        // SSRC and numbers, with the original's number and payload in it.
        let share = try SimulatedShare(scenario: .motion, width: 640, height: 360, link: Self.uplink(2_000_000, loss: 0.03),
                                       feedback: .transportWide, transportWide: true,
                                       retransmission: .init(payloadType: 97, ssrc: 0x0F1D))
        defer { share.stop() }
        share.run(for: .seconds(6))
        let packets = try #require(share.peer?.packets)
        let media = packets.filter { $0.ssrc == share.connection.ssrc }
        let rtx = packets.filter { $0.ssrc == 0x0F1D }
        #expect(rtx.count > 10, "only \(rtx.count) RTX packets in 6 s of 3 % loss")
        #expect(media.count + rtx.count == packets.count)
        var seen: Set<UInt64> = []
        for packet in packets {
            #expect(seen.insert(UInt64(packet.ssrc) << 16 | UInt64(packet.sequenceNumber)).inserted,
                    "SSRC \(packet.ssrc) sent \(packet.sequenceNumber) twice")
        }
        let firstSent = Dictionary(media.map { ($0.sequenceNumber, $0) }, uniquingKeysWith: { first, _ in first })
        for packet in rtx {
            let parsed = try RTPPacket.parse(packet.bytes)
            #expect(parsed.header.payloadType == 97)
            #expect(packet.transportSequenceNumber != nil, "an RTX packet carries a transport-wide number of its own")
            let original = try packet.bytes.withUnsafeBytes {
                try RetransmissionPacket.unwrap($0, payloadType: 96, ssrc: share.connection.ssrc)
            }
            let osn = UInt16(original[2]) << 8 | UInt16(original[3])
            let sent = try #require(firstSent[osn], "RTX carries \(osn), which was never sent")
            let first = try RTPPacket.parse(sent.bytes)
            #expect(Array(original[try RTPPacket.parse(original).payloadRange]) == Array(sent.bytes[first.payloadRange]))
            #expect(parsed.header.timestamp == first.header.timestamp)
        }
        // The RTX stream's numbers are used one after another, none skipped, from wherever they
        // began. They may leave out of order: a later NACK's resends go ahead of an earlier one's
        // still queued.
        let first = try #require(rtx.first).sequenceNumber
        let offsets = rtx.map { Int(Int16(bitPattern: $0.sequenceNumber &- first)) }
        #expect(Set(offsets).count == rtx.count && offsets.max()! - offsets.min()! == rtx.count - 1, "\(offsets)")
    }

    @Test(arguments: [true, false])
    func withoutRTX_aPacketTooOldToResendAsTheSameBytes_isResentOnlyToAReceiverThatWaitsForRepairs(_ asksByTheClock: Bool) throws {
        // docs/behaviour.md §7.6: the least round trip is 100 ms here (50 ms each way). A receiver
        // that asks by its clock (it has asked for a number not sent yet) is not resent a packet
        // first sent more than 400 ms before its NACK arrives; one that asks only for gaps is. A
        // younger one goes to both.
        let share = try SimulatedShare(scenario: .motion, width: 640, height: 360, link: Self.uplink(2_000_000),
                                       feedback: .nacksOnly)
        defer { share.stop() }
        let peer = try #require(share.peer)
        share.run(for: .seconds(2))
        if asksByTheClock {
            let next = try #require(peer.packets.last).sequenceNumber &+ 50
            peer.sendNACK(ssrc: share.connection.ssrc, sequenceNumbers: [next])
            share.run(for: .milliseconds(100))
        }
        func sentAgo(_ age: Duration) throws -> UInt16 {
            let cutoff = share.clock.now - age
            return try #require(peer.packets.last { !$0.padding && $0.sendTime <= cutoff }).sequenceNumber
        }
        // It reaches the sender 50 ms after it leaves: the old one is 450 ms old then, the young one 150.
        let old = try sentAgo(.milliseconds(400))
        let young = try sentAgo(.milliseconds(100))
        let before = peer.packets
        peer.sendNACK(ssrc: share.connection.ssrc, sequenceNumbers: [old, young])
        share.run(for: .milliseconds(300))
        // What left after the NACK (a resend carries its first abs-send-time, so the peer dates it then).
        let resent = Dictionary(grouping: peer.packets.dropFirst(before.count).filter { $0.ssrc == share.connection.ssrc },
                                by: \.sequenceNumber)
        #expect(resent[young]?.count == 1, "the young packet was not resent")
        #expect(resent[young]?.allSatisfy { $0.bytes == before.first { $0.sequenceNumber == young }?.bytes } == true,
                "resent as other bytes")
        #expect((resent[old]?.count ?? 0) == (asksByTheClock ? 0 : 1), "the old packet was resent \(resent[old]?.count ?? 0) times")
        let packets = share.connection.diagnosticLines.first { $0.hasPrefix("packets") } ?? ""
        #expect(packets.contains(asksByTheClock ? "too old 1," : "too old 0,"), "\(packets)")
    }

    @Test func underLossWithGCM_noSequenceNumberEverCarriesTwoDifferentPackets() throws {
        // 3 % random loss, NACKs answered from the history, probes of padding:
        // every datagram that left under one (SSRC, sequence number) is the same bytes.
        let key = try SRTPKey(profile: .aeadAes128Gcm, bytes: (0..<28).map { UInt8($0 * 7 & 0xFF) })
        let share = try SimulatedShare(scenario: .motion, width: 640, height: 360, link: Self.uplink(2_000_000, loss: 0.03),
                                       feedback: .transportWide, transportWide: true, key: key)
        defer { share.stop() }
        share.run(for: .seconds(6))
        let packets = try #require(share.peer?.packets)
        var first: [UInt32: [UInt16: [UInt8]]] = [:]
        var resent = 0
        var differing = 0
        for packet in packets {
            if let earlier = first[packet.ssrc]?[packet.sequenceNumber] {
                resent += 1
                if earlier != packet.bytes { differing += 1 }
            } else {
                first[packet.ssrc, default: [:]][packet.sequenceNumber] = packet.bytes
            }
        }
        #expect(differing == 0, "\(differing) of \(resent) repeated sequence numbers carried other bytes")
        #expect(resent > 10, "only \(resent) retransmissions in 6 s of 3 % loss")
        #expect(packets.contains { $0.padding }, "no probe padding was sent")
    }

    @Test func pliStormDuringAKeyframesRepair_makesNoSecondIDR_beforeItsGrace() throws {
        // A 1.5 Mbit/s link losing 2 %: a PLI at 3 s brings an IDR, which
        // takes a quarter second to leave the pacer and then is repaired by
        // NACK within a round trip. PLIs 50, 150 and 250 ms after it (a
        // receiver repeating itself) make no second IDR at once: they are left
        // to its repair, and answered 0.75 s after its repair window, since a
        // receiver that asks only when it gives a packet up does not ask again
        // when the repair fails. (Motion: no size change, so no keyframe of its own.)
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, policy: .motion, link: Self.uplink(loss: 0.02),
                                       feedback: .transportWide, transportWide: true)
        defer { share.stop() }
        let peer = try #require(share.peer)
        share.run(for: .seconds(3))
        let before = share.connection.keyframesMade
        peer.sendPLI(ssrc: share.connection.ssrc)
        _ = share.runUntilKeyframe(past: before, within: .milliseconds(1100))
        #expect(share.connection.keyframesMade == before + 1, "the PLI brought no IDR within 1.1 s")
        for gap in [50, 100, 100] {
            share.run(for: .milliseconds(Int64(gap)))
            peer.sendPLI(ssrc: share.connection.ssrc)
        }
        share.run(for: .milliseconds(400))
        #expect(share.connection.keyframesMade == before + 1, "the storm made \(share.connection.keyframesMade - before - 1) more at once")
        let answered = share.runUntilKeyframe(past: before + 1, within: .milliseconds(1500))
        #expect(share.connection.keyframesMade == before + 2, "the requests left to the repair were not answered after its grace")
        #expect(answered >= .milliseconds(150), "answered \(answered) after the storm's 400 ms")
        let keyframes = share.connection.diagnosticLines.first { $0.hasPrefix("keyframes") } ?? ""
        #expect(keyframes.contains("left to a repair 3"), "\(keyframes)")
    }

    @Test func aRequestPastAKeyframesRepair_onALinkWithRoom_isAnsweredAtOnce() throws {
        // A wide link. A PLI brings an IDR, whose last slice leaves while the encode call is still
        // returning; a second PLI 350 ms after the first is past that IDR's repair window (a round
        // trip, the pacer's queue and 100 ms after it left): an IDR answers it within 200 ms.
        // Before, an IDR whose last slice had left before the call returned was taken for one still
        // queued, and for 2 s every request waited on its repair: in two runs of three, the first
        // PLI was left to the repair of the share's first keyframe, sent 2 s before.
        let link = SimulatedLink(bitsPerSecond: 50_000_000, queueLimit: .delay(.milliseconds(200)),
                                 propagationDelay: .milliseconds(20), seed: 5)
        let share = try SimulatedShare(scenario: .motion, width: 320, height: 180, policy: .motion, link: link)
        defer { share.stop() }
        let pli = RTCPPacket.pictureLossIndication(PictureLossIndication(senderSSRC: 0x5EED, mediaSSRC: share.connection.ssrc))
        share.run(for: .seconds(2))
        for asked in 1...2 {
            let before = share.connection.keyframesMade
            share.receive(pli)
            let waited = share.runUntilKeyframe(past: before, within: .milliseconds(200))
            #expect(share.connection.keyframesMade == before + 1, "PLI \(asked) brought no IDR within 200 ms")
            share.run(for: .milliseconds(350) - waited)
        }
        let keyframes = share.connection.diagnosticLines.first { $0.hasPrefix("keyframes") } ?? ""
        #expect(keyframes.contains("left to a repair 0"), "\(keyframes)")
    }

    /// A 1080p share with transport-wide feedback, run for 10 s on a 3 Mbit/s tbf that falls to
    /// 0.6 Mbit/s just then.
    static func settledBeforeAStepDown() throws -> SimulatedShare {
        let share = try beforeAStepDown()
        share.run(for: .seconds(10))
        return share
    }

    /// That share, not yet run.
    static func beforeAStepDown() throws -> SimulatedShare {
        let steps = [SimulatedLink.RateStep(at: Instant.seconds(110), bitsPerSecond: 600_000)]
        let link = SimulatedLink(bitsPerSecond: 3_000_000, queueLimit: .delay(.milliseconds(200)), propagationDelay: .milliseconds(50),
                                 jitter: .milliseconds(1), seed: 5, steps: steps, burst: 16_384)
        return try SimulatedShare(scenario: .motion, width: 1920, height: 1080, link: link, feedback: .transportWide,
                                  transportWide: true)
    }

    /// The RTP timestamp of a packet the peer saw.
    static func timestamp(of packet: SimulatedPeer.Packet) throws -> UInt32 {
        try RTPPacket.parse(packet.bytes).header.timestamp
    }

    @Test func linkStepDown_withTransportWideFeedback_nothingIsDroppedFromASecondAndAQuarterOn() throws {
        // A 1080p share settled on a 3 Mbit/s tbf; at 10 s the link falls to 0.6 Mbit/s. What the
        // queue holds then and what the sender sends before feedback tells is lost; after that the
        // target is at the link within half a second. While the queue stands the pacer sends at
        // 0.8 × the target, so what the pacer holds (frames encoded for 3 Mbit/s, resends) joins a
        // queue that drains: from 11.25 s on nothing is dropped. (Paced at 1.2 × the target it kept
        // the queue full, and 10 packets were dropped 1–2 s after the step.) How far the queue has
        // drained by 11 s depends on how the sender's threads fell against the clock: in about one
        // run in twenty a few packets (3–8) were still dropped in the quarter second after it.
        let share = try Self.settledBeforeAStepDown()
        defer { share.stop() }
        let beforeStep = share.peer!.droppedAtQueue
        share.run(for: .seconds(1))
        let inTheFirstSecond = share.peer!.droppedAtQueue - beforeStep
        var trace: [String] = []
        for _ in 0..<12 {
            let dropped = share.peer!.droppedAtQueue
            share.run(for: .milliseconds(250))
            trace.append("\(share.connection.status(capturedFPS: 30, watchdog: "watching").targetBitrate / 1000)"
                         + "/\(share.peer!.droppedAtQueue - dropped)")
        }
        let dropped = trace.map { Int($0.split(separator: "/")[1])! }
        #expect(inTheFirstSecond > 0, "the step overran the link")
        #expect(dropped[0] <= 8 && dropped.dropFirst().allSatisfy { $0 == 0 },
                "dropped 1–4 s after the step; targets/drops \(trace.joined(separator: " "))")
    }

    /// Each frame of the media stream (by RTP timestamp, in sending order) and how much later than
    /// the quickest frame its last packet arrived, against when it was captured; nil for a frame
    /// the link lost part of.
    static func frameLateness(_ packets: [SimulatedPeer.Packet]) throws -> [(sent: Instant, late: Duration?)] {
        guard let media = packets.first(where: { !$0.padding })?.ssrc else { return [] }
        var frames: [UInt32: (sent: Instant, complete: Bool, last: Instant)] = [:]
        var order: [UInt32] = []
        for packet in packets where packet.ssrc == media && !packet.padding {
            let stamp = try timestamp(of: packet)
            if frames[stamp] == nil { order.append(stamp) }
            var frame = frames[stamp] ?? (packet.sendTime, true, packet.sendTime)
            if let arrival = packet.arrival { frame.last = max(frame.last, arrival) } else { frame.complete = false }
            frames[stamp] = frame
        }
        let first = order[0]
        let behind = order.map { stamp -> (sent: Instant, behind: Duration?) in
            let frame = frames[stamp]!
            let captured = Duration.microseconds(Int64(UInt32(stamp &- first)) * 1000 / 90)
            return (frame.sent, frame.complete ? (frame.last - .zero) - captured : nil)
        }
        let quickest = behind.compactMap(\.behind).min()!
        return behind.map { ($0.sent, $0.behind.map { $0 - quickest }) }
    }

    @Test func linkStepDown_withTransportWideFeedback_framesWaitForThePathsQueueToDrain() throws {
        // docs/behaviour.md §7.5: a 1080p share on 3 Mbit/s, stepped down to 0.6 at 10 s. Once
        // feedback tells of the step, what is on its way would wait in the tbf's queue (up to
        // 200 ms) behind the frames already sent; new frames wait at the encoder instead, so those
        // it makes arrive within 300 ms of the quickest frame, where a receiver that plays out 200 ms
        // behind still shows them. (Made at once and queued behind the step's, they came 520–650 ms
        // late until 11.1 s, and over 250 ms until 11.4 s.)
        let share = try Self.settledBeforeAStepDown()
        defer { share.stop() }
        let heldBefore = share.connection.framesHeldForLink
        share.run(for: .seconds(4))
        let frames = try Self.frameLateness(share.peer!.packets).filter { $0.sent >= share.started + .seconds(10) }
        let told = frames.filter { $0.sent >= share.started + .milliseconds(10_500) }
        let trace = frames.map { "\(Int(($0.sent - share.started).inMilliseconds))ms:\($0.late.map { "\(Int($0.inMilliseconds))" } ?? "lost")" }
        #expect(share.connection.framesHeldForLink > heldBefore, "\(trace)")
        #expect(told.allSatisfy { $0.late.map { $0 <= .milliseconds(300) } ?? true }, "\(trace)")
    }

    @Test func linkStepDown_aKeyframeAskedForAsTheQueueGrows_isMadeForTheNewRate() throws {
        // docs/behaviour.md §7.5: a 1080p share whose receiver asks for keyframes, on 3 Mbit/s
        // stepped down to 0.6 at 10 s. At 10.3 s feedback already shows the queue growing but the
        // target is still the old link's; a PLI then (rtpbin gives up on what waits past its latency
        // about so) waits for a shorter queue, and the keyframe is made once the target has fallen:
        // 12–24 KB, not the 69 KB that 3 Mbit/s allows, which took 0.9 s of the new link.
        let share = try Self.beforeAStepDown()
        defer { share.stop() }
        let pli = RTCPPacket.pictureLossIndication(PictureLossIndication(senderSSRC: 0x5EED, mediaSSRC: share.connection.ssrc))
        share.run(for: .seconds(5))
        share.receive(pli)
        share.run(for: .milliseconds(5300))
        let before = share.connection.keyframesMade
        let asked = share.clock.now
        share.receive(pli)
        share.run(for: .seconds(1))
        #expect(share.connection.keyframesMade > before, "no keyframe within 1 s of the PLI")
        var frames: [UInt32: Int] = [:]
        for packet in share.peer!.packets where !packet.padding && packet.sendTime >= asked {
            frames[try Self.timestamp(of: packet), default: 0] += packet.bytes.count
        }
        let largest = frames.values.max() ?? 0
        #expect(largest <= 30_000, "the largest frame sent after the PLI: \(largest) bytes")
    }

    @Test func linkStepDown_pacerHoldsFramesRatherThanQueueSeconds() throws {
        // 0–4 s: a 3 Mbit/s link; from 4 s: 600 kbit/s, and at 4.2 s recovery
        // asks for a keyframe, sized for the 3 Mbit/s the estimate still says.
        // The target follows within 2 s (and then stands no more than a fifth
        // over the link: the encoder aims at 0.85 of it, and growth goes on
        // while what is sent leaves no queue); while that keyframe drains at
        // the new rate (about a second), new frames wait rather than queue
        // behind it, and by 6 s the pacer holds under a quarter second again.
        let steps = [SimulatedLink.RateStep(at: Instant.seconds(104), bitsPerSecond: 600_000)]
        let link = SimulatedLink(bitsPerSecond: 3_000_000, queueLimit: .delay(.milliseconds(200)), propagationDelay: .milliseconds(50),
                                 seed: 5, steps: steps)
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: link, feedback: .transportWide, transportWide: true)
        defer { share.stop() }
        var samples: [(at: Double, target: Int, queued: Duration)] = []
        for tick in 0..<160 {
            if tick == 84 { share.connection.requestKeyframe(reason: "recovery") }
            share.run(for: .milliseconds(50))
            samples.append((share.elapsed, share.connection.status(capturedFPS: 30, watchdog: "watching").targetBitrate,
                            share.connection.pacerDelay))
        }
        let trace = samples.map { "\(Int($0.at * 10) / 10):\($0.target / 1000)/\(Int($0.queued.inMilliseconds))" }.joined(separator: " ")
        #expect(samples.filter { $0.at >= 6 }.allSatisfy { $0.target <= 720_000 }, "\(trace)")
        #expect(samples.allSatisfy { $0.target >= 300_000 }, "\(trace)")
        #expect(share.connection.framesHeldForLink > 0)
        #expect(samples.filter { $0.at >= 6 }.allSatisfy { $0.queued <= .milliseconds(250) }, "\(trace)")
        #expect(samples.allSatisfy { $0.queued <= .milliseconds(1300) }, "\(trace)")
    }
}
