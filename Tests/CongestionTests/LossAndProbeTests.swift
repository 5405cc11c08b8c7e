@testable import Congestion
import Foundation
import Media
import Testing

struct LossAndProbeTests {
    @Test func nackLoss_countsEachNumberOnceAgainstThePacketsItIsAbout() {
        // Packets 0…199 leave every 5 ms; every 20th is lost, and asked for twice.
        var meter = NackLossMeter()
        for i in 0..<200 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        let lost: [UInt16] = (0..<10).map { UInt16($0 * 20) }
        #expect(meter.recordNack(lost) == 10)
        #expect(meter.recordNack(lost, waited: .milliseconds(300)) == 0)
        // At 500 ms, with 100 ms for NACKs to come, only 0–400 ms is judged: under a window.
        #expect(meter.takeLossRatio(at: .zero + .milliseconds(500), settle: .milliseconds(100)) == nil)
        // At 610 ms: packets 0…102 (0–510 ms), 0, 20, 40, 60, 80 and 100 of them lost; none told of from behind a queue.
        let window = meter.takeLossRatio(at: .zero + .milliseconds(610), settle: .milliseconds(100))
        #expect(window?.ratio == 6.0 / 103.0 && window?.behindAQueue == false)
        #expect(meter.takeLossRatio(at: .zero + .milliseconds(610), settle: .milliseconds(100)) == nil)
    }

    @Test func nackLoss_fromBehindAQueue_isSaidSo_whenMostOfTheWindowsLossIs() {
        // Two NACKs 300 ms late, 400 ms apart, naming five losses between them: a queue stands,
        // and the first one's losses are its too.
        var meter = NackLossMeter()
        for i in 0..<120 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        meter.recordNack([10, 11, 12], waited: .milliseconds(300), at: .zero + .milliseconds(700))
        meter.recordNack([50])
        // Until a second late NACK comes, or a second has passed, the window waits.
        #expect(meter.takeLossRatio(at: .zero + .milliseconds(900), settle: .milliseconds(100)) == nil)
        meter.recordNack([60, 61], waited: .milliseconds(300), at: .zero + .milliseconds(1100))
        let window = meter.takeLossRatio(at: .zero + .milliseconds(1100), settle: .milliseconds(100))
        #expect(window?.ratio == 6.0 / 120.0 && window?.behindAQueue == true)
    }

    /// Packets 0…299 leave every 5 ms; the receiver sends its NACKs with its reports, every
    /// 500 ms, each naming the losses since the one before, the packet after the newest having
    /// waited `waited` ms. Whether the window says a queue stands.
    private static func queueSeen(by meter: NackLossMeter = NackLossMeter(), waited: Int64) -> Bool? {
        var meter = meter
        for i in 0..<300 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(5 * Int64(i))) }
        meter.recordNack((40..<59).map { UInt16($0) }, waited: .milliseconds(waited), at: .zero + .milliseconds(600))
        meter.recordNack((100..<125).map { UInt16($0) }, waited: .milliseconds(waited + 12), at: .zero + .milliseconds(1100))
        return meter.takeLossRatio(at: .seconds(1.6), settle: .milliseconds(100))?.behindAQueue
    }

    @Test func nackLoss_untilTheFirstBackOff_aQueueAsDeepAsAReceiversLatencyIsOne() {
        // A start from the cap into a tbf with 200 ms of latency: waits of 0.23–0.24 s.
        #expect(Self.queueSeen(waited: 232) == true)
        // The same losses told of 150 ms late: no queue, even at the start.
        #expect(Self.queueSeen(waited: 150) == false)
        // Once the rate has been lowered, such waits are what held reports make under random loss.
        var lowered = NackLossMeter()
        lowered.restart()
        #expect(Self.queueSeen(by: lowered, waited: 232) == false)
        #expect(Self.queueSeen(by: lowered, waited: 300) == true)
    }

    @Test func nackLoss_heldReportsOfALossOrTwo_areNoQueue() {
        // 2 % lost at random; the receiver sends its NACKs only with its
        // regular reports, 485 ms apart, each naming the losses since the one
        // before. Two in a row told of their newest loss 300 ms late: four
        // losses between them, too few for a queue's tail drop.
        var meter = NackLossMeter()
        for i in 0..<240 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        meter.recordNack([20, 31], waited: .milliseconds(300), at: .zero + .milliseconds(600))
        meter.recordNack([100, 118], waited: .milliseconds(300), at: .zero + .milliseconds(1085))
        let window = meter.takeLossRatio(at: .seconds(2.2), settle: .milliseconds(100))
        #expect(window?.ratio == 4.0 / 240.0 && window?.behindAQueue == false, "\(String(describing: window))")
    }

    @Test func nackLoss_askedAgain_isNoWitnessOfAQueue() {
        // 2 % lost at random. 10 is asked for at once, then again 300 ms
        // later (its retransmission was lost too); 60 is told of in a report
        // held 300 ms. The repeat is late because it is a repeat: it does not
        // make the held report a second late NACK, so no queue stands.
        var meter = NackLossMeter()
        for i in 0..<120 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        meter.recordNack([10], waited: .milliseconds(30), at: .zero + .milliseconds(150))
        meter.recordNack([10], waited: .milliseconds(300), at: .zero + .milliseconds(450))
        meter.recordNack([60], waited: .milliseconds(300), at: .zero + .milliseconds(700))
        let window = meter.takeLossRatio(at: .seconds(1.8), settle: .milliseconds(100))
        #expect(window?.ratio == 2.0 / 120.0 && window?.behindAQueue == false, "\(String(describing: window))")
    }

    @Test func nackLoss_oneLateNackAlone_isAHeldReport_notAQueue() {
        // rtpbin holds a NACK 280 ms for its next regular report; the one
        // before came within 15 ms, the one after is a second and more away.
        var meter = NackLossMeter()
        for i in 0..<120 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        meter.recordNack([5], waited: .milliseconds(15), at: .zero + .milliseconds(100))
        meter.recordNack([10, 11, 12, 13, 14, 15, 16, 17], waited: .milliseconds(280), at: .zero + .milliseconds(400))
        #expect(meter.takeLossRatio(at: .zero + .milliseconds(1300), settle: .milliseconds(100)) == nil)
        meter.recordNack([110], waited: .milliseconds(300), at: .zero + .milliseconds(1500))
        #expect(meter.takeLossRatio(at: .zero + .milliseconds(2400), settle: .milliseconds(100)) == nil)
        let window = meter.takeLossRatio(at: .zero + .milliseconds(2600), settle: .milliseconds(100))
        #expect(window?.ratio == 10.0 / 120.0 && window?.behindAQueue == false, "\(String(describing: window))")
    }

    @Test func nackLoss_fromAReceiverThatAsksAhead_countsOnlyLossBehindAQueue() {
        // A busy rtpbin names, with each packet just sent, the next ones it
        // expects: 40 of its 102 names are guesses. Of the 62 it asked for
        // that were sent, only the 5 told of from behind a standing queue count.
        var meter = NackLossMeter()
        for i in 0..<120 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        for i in 0..<19 { meter.recordNack([UInt16(20 + 3 * i), UInt16(21 + 3 * i), UInt16(22 + 3 * i)], guesses: 2) }
        meter.recordNack([10, 11, 12], waited: .milliseconds(300), guesses: 2, at: .zero + .milliseconds(600))
        meter.recordNack([100, 101], waited: .milliseconds(300), at: .zero + .milliseconds(900))
        #expect(meter.receiverGuesses)
        let window = meter.takeLossRatio(at: .seconds(1), settle: .milliseconds(100))
        #expect(window?.ratio == 5.0 / 120.0 && window?.behindAQueue == true)
        // A receiver that asks by its gaps: the same names, no guesses, all count.
        var gaps = NackLossMeter()
        for i in 0..<120 { gaps.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        for i in 0..<19 { gaps.recordNack([UInt16(20 + 3 * i), UInt16(21 + 3 * i), UInt16(22 + 3 * i)]) }
        gaps.recordNack([10, 11, 12], waited: .milliseconds(300), guesses: 1)
        #expect(!gaps.receiverGuesses)
        #expect(gaps.takeLossRatio(at: .seconds(1), settle: .milliseconds(100))?.ratio == 60.0 / 120.0)
    }

    @Test func nackLoss_afterABackOff_judgesOnlyPacketsSentAtTheNewRate() {
        // 0…99 sent over 0.5 s at a rate that lost half of them; the rate is
        // lowered at 0.5 s; their NACKs come after it. 100…219 are all received.
        var meter = NackLossMeter()
        for i in 0..<100 { meter.recordSent(sequenceNumber: UInt16((65_500 + i) % 65_536), at: .zero + .milliseconds(Int64(5 * i))) }
        meter.restart()
        for i in 100..<220 { meter.recordSent(sequenceNumber: UInt16((65_500 + i) % 65_536), at: .zero + .milliseconds(Int64(5 * i))) }
        meter.recordNack((0..<50).map { UInt16((65_500 + 2 * $0) % 65_536) })
        // Across the wrap of the 16-bit numbers, the new window is all received.
        #expect(meter.takeLossRatio(at: .seconds(2), settle: .milliseconds(100))?.ratio == 0)
    }

    @Test func nackLoss_afterABackOffForAQueue_judgesOnlyPacketsSentOnceItDrained() {
        // 0…109 overran a queue: two NACKs came 300 ms late. The rate is halved at 0.55 s and the
        // queue drains until 1.1 s; 110…219 (0.55–1.1 s) meet what is left of it, and a keyframe
        // among them loses 30. 220…339, sent after, all arrive.
        var meter = NackLossMeter()
        for i in 0..<110 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        meter.recordNack([10, 11, 12], waited: .milliseconds(300), at: .zero + .milliseconds(800))
        meter.recordNack([40, 41], waited: .milliseconds(320), at: .zero + .milliseconds(900))
        let overrun = meter.takeLossRatio(at: .seconds(1), settle: .milliseconds(400))
        #expect(overrun?.behindAQueue == true && overrun?.queueWait == .milliseconds(320))
        meter.restart(judgedFrom: .zero + .milliseconds(1100))
        for i in 110..<340 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        meter.recordNack((150..<180).map { UInt16($0) }, waited: .milliseconds(300), at: .zero + .milliseconds(1200))
        meter.recordNack([190], waited: .milliseconds(300), at: .zero + .milliseconds(1300))
        let after = meter.takeLossRatio(at: .seconds(2.5), settle: .milliseconds(400))
        #expect(after?.ratio == 0 && after?.behindAQueue == false, "\(String(describing: after))")
        // Without the wait for the drain, the keyframe's loss would have halved the rate again.
        var undrained = NackLossMeter()
        for i in 0..<110 { undrained.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        undrained.restart()
        for i in 110..<340 { undrained.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        undrained.recordNack((150..<180).map { UInt16($0) }, waited: .milliseconds(300), at: .zero + .milliseconds(1200))
        undrained.recordNack([190], waited: .milliseconds(300), at: .zero + .milliseconds(1300))
        #expect(undrained.takeLossRatio(at: .seconds(2.5), settle: .milliseconds(400))?.behindAQueue == true)
    }

    /// 1.92 Mbit/s from a 2 Mbit/s cap for 4 s, a 1200-byte packet every 5 ms, and after packet
    /// `i` a NACK 300 ms late for the numbers `nacks[i]` names: when the estimate halved, whether
    /// it ever grew, and where it ended.
    private static func halvings(nacks: [Int: (numbers: ClosedRange<Int>, at: Double)])
        -> (at: [Double], grew: Bool, last: Double) {
        var estimator = SendSideBandwidthEstimator(cap: 2_000_000, feedbackKind: .receiverReports)
        var halvings: [Double] = []
        var grew = false
        for i in 0..<800 {
            let now = Instant.zero + .milliseconds(Int64(5 * i))
            let before = estimator.lossBasedBitrate
            _ = estimator.onPacketSent(size: 1200, at: now, sequenceNumber: UInt16(i))
            if let nack = nacks[i] {
                estimator.onNack(sequenceNumbers: nack.numbers.map { UInt16($0) }, waited: .milliseconds(300),
                                 at: .seconds(nack.at))
            }
            if estimator.lossBasedBitrate < before { halvings.append((now - .zero).inSeconds) }
            if estimator.lossBasedBitrate > before { grew = true }
        }
        return (halvings, grew, estimator.lossBasedBitrate)
    }

    @Test func estimator_afterASecondHalvingForAQueue_waitsItsWaitBeforeJudgingAgain() {
        // A path that queues the stream: NACKs come 300 ms late, and the estimate halves at 1 s
        // and again at about 1.86 s. What leaves in the 300 ms after that meets the queue still
        // there and a burst loses 31 packets; what leaves after all arrives. The estimate halves
        // twice, not three times.
        let run = Self.halvings(nacks: [180: (10...15, 0.9), 200: (40...45, 1.0), 320: (230...235, 1.6),
                                        340: (260...265, 1.7), 500: (380...405, 2.5), 520: (410...414, 2.6)])
        #expect(run.at.count == 2 && run.at.first == 1.0 && run.at.last! < 2, "\(run.at)")
        #expect(run.last >= 500_000, "\(run.last)")
    }

    @Test func estimator_aHalvingForAQueueSoonAfterAnother_waitsItsWaitEvenWithACleanWindowBetween() {
        // As above, but the window after the first halving (at 1 s) loses nothing: the queue is
        // still filling. NACKs 300 ms late then halve it again at about 2.36 s, and a burst lost
        // from what left in the 600 ms after is what the queue left, not a third overrun.
        let run = Self.halvings(nacks: [180: (10...15, 0.9), 200: (40...45, 1.0), 400: (320...325, 2.0),
                                        420: (340...345, 2.1), 580: (480...510, 2.9), 600: (520...524, 3.0)])
        #expect(run.grew, "the window between lost nothing")
        #expect(run.at.count == 2 && run.at.first == 1.0 && run.at.last! < 2.5, "\(run.at)")
    }

    /// 1.92 Mbit/s from a 2 Mbit/s cap for 5 s, a 1200-byte packet every 5 ms: when `capTried`, one
    /// packet of the first second NACKed (the cap passed), then `firstLost` packets from the 210th
    /// NACKed on time (no queue yet confirmed), then NACKs 300 ms late from the window that begins
    /// `windowsLater` windows after; the estimate before the first back-off and after each.
    /// `report`: a receiver report's fraction lost, and the packet it comes with.
    private static func toldTwice(windowsLater: Int, capTried: Bool = true, firstLost: Int = 40,
                                  report: (lost: Double, at: Int)? = nil) -> (before: Double, after: [Double]) {
        var estimator = SendSideBandwidthEstimator(cap: 2_000_000, feedbackKind: .receiverReports)
        let before = estimator.lossBasedBitrate
        var after: [Double] = []
        let late = 430 + 140 * (windowsLater - 1)
        for i in 0..<1000 {
            let now = Instant.zero + .milliseconds(Int64(5 * i))
            let was = estimator.lossBasedBitrate
            _ = estimator.onPacketSent(size: 1200, at: now, sequenceNumber: UInt16(i))
            if capTried, i == 30 { estimator.onNack(sequenceNumbers: [10], at: now) }
            if let report, i == report.at { estimator.onReceiverReport(fractionLost: report.lost, at: now) }
            if i == 370 { estimator.onNack(sequenceNumbers: (210..<210 + firstLost).map { UInt16($0) }, at: now) }
            if i == late + 60 { estimator.onNack(sequenceNumbers: (late..<late + 30).map { UInt16($0) }, waited: .milliseconds(300), at: now) }
            if i == late + 80 { estimator.onNack(sequenceNumbers: (late + 40..<late + 45).map { UInt16($0) }, waited: .milliseconds(300), at: now) }
            if estimator.lossBasedBitrate < was { after.append(estimator.lossBasedBitrate) }
        }
        return (before, after)
    }

    @Test func estimator_anOverrunToldFirstUnconfirmed_thenConfirmedInTheNextWindow_takesOffOneHalving() {
        let twice = Self.toldTwice(windowsLater: 1)
        #expect(twice.after.count == 2, "\(twice.after)")
        #expect(twice.after.last.map { $0 >= 0.5 * twice.before - 1 } == true, "\(twice.before) → \(twice.after)")
        // Confirmed a window later, it is an overrun of its own, halved from where the estimate stands.
        let apart = Self.toldTwice(windowsLater: 2)
        #expect(apart.after.count == 2, "\(apart.after)")
        #expect(apart.after.last.map { $0 < 0.5 * apart.before - 50_000 } == true, "\(apart.before) → \(apart.after)")
    }

    @Test func estimator_theFirstWindowJudged_losingATwentiethOfTheUntriedCap_isAnOverrun() {
        // No queue is confirmed, but nothing has tried the cap either: the first window, 300
        // packets, halves it when it lost 40 (13 %) or 20 (7 %), and the confirmed one after is a
        // second overrun close after the first, halved again. Under a twentieth (10, 3 %) it may be
        // random loss: only the confirmed window halves.
        for lost in [40, 20] {
            let untried = Self.toldTwice(windowsLater: 1, capTried: false, firstLost: lost)
            #expect(untried.after.count == 2, "\(lost): \(untried.after)")
            #expect(untried.after.first.map { $0 <= 0.5 * untried.before + 1 } == true, "\(lost): \(untried.before) → \(untried.after)")
            #expect(untried.after.last.map { $0 <= 0.25 * untried.before + 1 } == true, "\(lost): \(untried.before) → \(untried.after)")
        }
        // A report on the first 0.2 s of sending, nothing lost, says nothing of the cap; one on
        // 0.6 s that lost a fifth is the first judgement, and halves it.
        let early = Self.toldTwice(windowsLater: 1, capTried: false, report: (0, 40))
        #expect(early.after.first.map { $0 <= 0.5 * early.before + 1 } == true, "\(early.before) → \(early.after)")
        let reported = Self.toldTwice(windowsLater: 1, capTried: false, report: (0.2, 120))
        #expect(reported.after.first.map { $0 <= 0.5 * reported.before + 1 } == true, "\(reported.before) → \(reported.after)")
        // An early report that halved the cap was its first judgement: the window after, 7 % lost
        // with no queue told, is the halved rate's and may be random; only the confirmed one halves.
        let halvedEarly = Self.toldTwice(windowsLater: 1, capTried: false, firstLost: 20, report: (0.2, 40))
        #expect(halvedEarly.after.count == 2, "\(halvedEarly.after)")
        #expect(halvedEarly.after.last.map { $0 >= 0.25 * halvedEarly.before - 1 } == true,
                "\(halvedEarly.before) → \(halvedEarly.after)")
        let random = Self.toldTwice(windowsLater: 1, capTried: false, firstLost: 10)
        #expect(random.after.count == 1, "\(random.after)")
        #expect(random.after.first.map { (0.45 * random.before...0.55 * random.before).contains($0) } == true, "\(random.after)")
    }

    /// 1.92 Mbit/s from a 4 Mbit/s cap for 4 s, a 1200-byte packet every 5 ms. The first window
    /// loses a fifth (halved as untried); then 30 packets sent from 1 s are NACKed 350 ms beyond the
    /// round trip (a queue confirmed: halved again at about 1.7 s). From 2.05 s, a queue's wait after
    /// that back-off, three packets in every ten are NACKed `laterWait` beyond the round trip. When
    /// the estimate fell, and to what.
    private static func backOffsAfterAQueue(laterWait: Int) -> [(at: Double, bitrate: Double)] {
        var estimator = SendSideBandwidthEstimator(cap: 4_000_000, feedbackKind: .receiverReports)
        var backOffs: [(at: Double, bitrate: Double)] = []
        let late = 1 + (100 + laterWait) / 5
        for i in 0..<800 {
            let now = Instant.zero + .milliseconds(Int64(5 * i))
            let was = estimator.lossBasedBitrate
            _ = estimator.onPacketSent(size: 1200, at: now, sequenceNumber: UInt16(i))
            if i == 100 { estimator.onNack(sequenceNumbers: (40..<60).map { UInt16($0) }, at: now) }
            if i == 320 { estimator.onNack(sequenceNumbers: (200..<225).map { UInt16($0) }, waited: .milliseconds(350), at: now) }
            if i == 330 { estimator.onNack(sequenceNumbers: (225..<230).map { UInt16($0) }, waited: .milliseconds(350), at: now) }
            let named = i - late
            if named >= 410, named % 10 == 0 {
                estimator.onNack(sequenceNumbers: (named..<named + 3).map { UInt16($0) }, waited: .milliseconds(Int64(laterWait)), at: now)
            }
            if estimator.lossBasedBitrate < was { backOffs.append(((now - .zero).inSeconds, estimator.lossBasedBitrate)) }
        }
        return backOffs
    }

    @Test func estimator_aQueueStillAsDeepAQueuesWaitAfterABackOff_halvesAgainBeforeTheNextWindow() {
        // Judged by the next window, the third back-off would wait for the drain (0.7 s), the window
        // (0.5 s) and its settling (0.35 s): 3.25 s. Eight NACKs that still wait 350 ms for packets
        // sent 350 ms and more after the second tell by 2.86 s that the queue stands.
        let standing = Self.backOffsAfterAQueue(laterWait: 350)
        #expect(standing.count >= 3, "\(standing)")
        #expect(standing.dropFirst(2).first.map { (2.8...3.0).contains($0.at) } == true, "\(standing)")
        #expect(standing.dropFirst(2).first.map { $0.bitrate <= 0.5 * standing[1].bitrate + 1 } == true, "\(standing)")
        // Waits that fell to 150 ms: the queue drains, and only the next window may judge the rate.
        let draining = Self.backOffsAfterAQueue(laterWait: 150)
        #expect(draining.count >= 2, "\(draining)")
        #expect(draining.dropFirst(2).allSatisfy { $0.at >= 3.2 }, "\(draining)")
    }

    /// 1.92 Mbit/s under a 2 Mbit/s cap for 4 s, a 1200-byte packet every 5 ms; of the packets
    /// `lossy`, every 12th (8 %) is NACKed 100 ms after it left, 150 ms beyond the round trip: loss
    /// with no queue told. The least the estimate came to.
    private static func leastUnderSteadyLoss(_ lossy: Range<Int>) -> Double {
        var estimator = SendSideBandwidthEstimator(cap: 2_000_000, feedbackKind: .receiverReports)
        var least = estimator.lossBasedBitrate
        for i in 0..<800 {
            let now = Instant.zero + .milliseconds(Int64(5 * i))
            _ = estimator.onPacketSent(size: 1200, at: now, sequenceNumber: UInt16(i))
            if lossy.contains(i - 20), (i - 20) % 12 == 0 {
                estimator.onNack(sequenceNumbers: [UInt16(i - 20)], waited: .milliseconds(150), at: now)
            }
            least = min(least, estimator.lossBasedBitrate)
        }
        return least
    }

    @Test func estimator_aTwentiethLostInTwoWindowsInARow_isAnOverrun_withNoQueueTold() {
        // One window of 8 % lost may be random loss: it takes off what it names, no more. Loss that
        // goes on in the next window, of packets sent after that back-off, is a bottleneck's tail
        // drop, whatever the NACKs' waits say (a shallow queue never makes them late): the
        // estimate halves from where it stood before the first.
        let once = Self.leastUnderSteadyLoss(150..<320)
        let twice = Self.leastUnderSteadyLoss(150..<500)
        #expect(once < 2_000_000 && once >= 0.85 * 1_920_000, "\(once)")
        #expect(twice <= 0.55 * 2_000_000, "\(twice)")
    }

    /// 1.92 Mbit/s from a 4 Mbit/s cap for 5 s, a 1200-byte packet every 5 ms; a NACK at 0.5 s
    /// for 30 of the first 200 packets, then, when `nacking`, one for a single packet 250 ms after
    /// each keyframe. A keyframe leaves at 1, 2, 3 and 4 s, and, when `askingAgain`, the receiver
    /// asks for another 500 ms after each. The estimate after the back-off the first NACK brought,
    /// and the most it reached after.
    private static func afterBackOff(askingAgain: Bool, nacking: Bool = false) -> (backedOff: Double, most: Double) {
        var estimator = SendSideBandwidthEstimator(cap: 4_000_000, feedbackKind: .receiverReports)
        var backedOff = 0.0
        var most = 0.0
        for i in 0..<1000 {
            let now = Instant.zero + .milliseconds(Int64(5 * i))
            _ = estimator.onPacketSent(size: 1200, at: now, sequenceNumber: UInt16(i))
            if i == 100 { estimator.onNack(sequenceNumbers: (10..<40).map { UInt16($0) }, at: now) }
            if nacking, i % 200 == 50, i > 200 { estimator.onNack(sequenceNumbers: [UInt16(i - 30)], at: now) }
            if i % 200 == 0, i > 0 { estimator.onKeyframeSent(at: now) }
            if askingAgain, i % 200 == 100, i > 200 { estimator.onKeyframeRequest(at: now) }
            if i == 200 { backedOff = estimator.lossBasedBitrate }
            if i > 200 { most = max(most, estimator.lossBasedBitrate) }
        }
        return (backedOff, most)
    }

    @Test func estimator_receiverThatAsksForKeyframesAgain_isNotGrownOnItsSilence() {
        // Without the requests the silence after the NACK is windows without loss, and the
        // estimate grows; with them, each keyframe was lost, and it stays where the NACK put it.
        // A receiver that NACKed after the keyframe left told its loss that way: what it names
        // (one packet in 200) is what counts, and the estimate grows.
        let silent = Self.afterBackOff(askingAgain: false)
        let asking = Self.afterBackOff(askingAgain: true)
        let nacking = Self.afterBackOff(askingAgain: true, nacking: true)
        #expect(silent.backedOff < 4_000_000 && asking.backedOff == silent.backedOff, "\(silent) \(asking)")
        #expect(silent.most > 1.1 * silent.backedOff, "\(silent)")
        #expect(asking.most <= asking.backedOff, "\(asking)")
        #expect(nacking.most > 1.1 * nacking.backedOff, "\(nacking)")
    }

    /// Packets 0…199 every 5 ms; every 15th from 10 on lost, `nacks` of them told of, each NACK
    /// `wait(t)` beyond the round trip after the packet following it left at t seconds.
    private static func waitsWindow(nacks: Int, wait: (Double) -> Double)
        -> (ratio: Double, behindAQueue: Bool, queueWait: Duration, queueGrowth: Double?)? {
        var meter = NackLossMeter()
        for i in 0..<200 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        for k in 0..<nacks {
            let lost = 10 + 15 * k
            let successorLeft = 0.005 * Double(lost + 1)
            meter.recordNack([UInt16(lost)], waited: .seconds(wait(successorLeft)), at: .seconds(successorLeft + 0.3))
        }
        return meter.takeLossRatio(at: .seconds(1.2), settle: .milliseconds(100))
    }

    @Test func nackLoss_waitsThatGrowAsPacketsLeave_sayHowFastTheQueueFills() {
        let filling = Self.waitsWindow(nacks: 12) { 0.02 + 0.2 * $0 }
        #expect(filling?.queueGrowth.map { abs($0 - 0.2) < 1e-6 } == true, "\(String(describing: filling))")
        #expect(filling?.ratio == 12.0 / 200.0 && filling?.behindAQueue == false)
        let standing = Self.waitsWindow(nacks: 12) { _ in 0.15 }
        #expect(standing?.queueGrowth.map { abs($0) < 1e-6 } == true, "\(String(describing: standing))")
        // Five NACKs could be a receiver's held reports: they say nothing of the queue.
        let few = Self.waitsWindow(nacks: 5) { 0.02 + 0.2 * $0 }
        #expect(few != nil && few?.queueGrowth == nil, "\(String(describing: few))")
    }

    /// 1.92 Mbit/s from a 2 Mbit/s cap, a 1200-byte packet every 5 ms; from 0.5 s to 1 s one
    /// packet in eight NACKed, each `wait(t)` beyond the round trip after the packet following it
    /// left at t seconds. The estimate once the NACKs' window has been judged.
    private static func afterNacksThatWait(_ wait: (Double) -> Double) -> Double {
        var estimator = SendSideBandwidthEstimator(cap: 2_000_000, feedbackKind: .receiverReports)
        var nacks: [Int: (lost: Int, waited: Double)] = [:]
        for lost in stride(from: 100, to: 200, by: 8) {
            let successorLeft = 0.005 * Double(lost + 1)
            let waited = wait(successorLeft)
            nacks[Int(((successorLeft + 0.1 + waited) / 0.005).rounded(.up))] = (lost, waited)
        }
        for i in 0..<340 {
            let now = Instant.zero + .milliseconds(Int64(5 * i))
            _ = estimator.onPacketSent(size: 1200, at: now, sequenceNumber: UInt16(i))
            if let nack = nacks[i] {
                estimator.onNack(sequenceNumbers: [UInt16(nack.lost)], waited: .seconds(nack.waited), at: now)
            }
        }
        return estimator.lossBasedBitrate
    }

    @Test func estimator_nacksWhoseWaitsGrow_backOffUnderWhatThePathCarried() {
        // Waits that grow by a quarter of each second of sending: the path carries 1.92 / 1.25
        // Mbit/s, and the estimate lands at 0.8 of that, whatever share of the packets the NACKs
        // name. Flat waits tell nothing of the path: an eighth lost takes off half of that.
        let filling = Self.afterNacksThatWait { 0.02 + 0.25 * ($0 - 0.5) }
        let carried = 1_920_000 / 1.25
        #expect(abs(filling - 0.8 * carried) < 0.02 * carried, "\(filling)")
        let standing = Self.afterNacksThatWait { _ in 0.1 }
        #expect(abs(standing - 1_920_000 * (1 - 0.5 / 8)) < 20_000, "\(standing)")
        // Waits that fall tell a queue that drains: what the NACKs name was late, not lost.
        let draining = Self.afterNacksThatWait { 0.2 - 0.25 * ($0 - 0.5) }
        #expect(draining == 2_000_000, "\(draining)")
    }

    /// Packets every 5 ms; from 0.5 s one in four NACKed, as a receiver that asks by its clock
    /// does behind a queue, each NACK `wait(t)` beyond the round trip after the packet following
    /// it left at t seconds. What the meter reads of a filling queue when the NACK for the packet
    /// sent at `until` seconds has come.
    private static func fillingQueue(until: Double, wait: (Double) -> Double) -> Double? {
        var meter = NackLossMeter()
        for i in 0..<400 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        var now = Instant.zero
        for lost in stride(from: 100, to: Int(until / 0.005), by: 4) {
            let successorLeft = 0.005 * Double(lost + 1)
            now = .seconds(successorLeft + 0.1 + wait(successorLeft))
            meter.recordNack([UInt16(lost)], waited: .seconds(wait(successorLeft)), at: now)
        }
        return meter.fillingQueue(at: now)
    }

    @Test func nackLoss_waitsThatGrowPastADepth_sayAQueueFillsBeforeItsWindow() {
        // Waits from 60 ms growing by half of each second of sending: 0.1 s by 0.58 s, and
        // 150 ms of sending told of by 0.65 s.
        let growing = { (t: Double) in 0.06 + 0.5 * (t - 0.5) }
        let filling = Self.fillingQueue(until: 0.7, wait: growing)
        #expect(filling.map { abs($0 - 0.5) < 1e-6 } == true, "\(String(describing: filling))")
        // Too little sending told of yet, or a queue too shallow to be more than a keyframe's.
        #expect(Self.fillingQueue(until: 0.6, wait: growing) == nil)
        #expect(Self.fillingQueue(until: 0.9) { 0.01 + 0.1 * ($0 - 0.5) } == nil)
        // A queue that stands or drains fills nothing.
        let standing = Self.fillingQueue(until: 0.9) { _ in 0.15 }
        #expect(standing.map { abs($0) < 1e-6 } == true, "\(String(describing: standing))")
        let draining = Self.fillingQueue(until: 0.9) { 0.3 - 0.2 * ($0 - 0.5) }
        #expect(draining.map { abs($0 + 0.2) < 1e-6 } == true, "\(String(describing: draining))")
        // Only the NACKs of the last half second count: these came long before the last.
        var meter = NackLossMeter()
        for i in 0..<200 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        for lost in stride(from: 100, to: 160, by: 4) {
            let successorLeft = 0.005 * Double(lost + 1)
            meter.recordNack([UInt16(lost)], waited: .seconds(growing(successorLeft)), at: .seconds(successorLeft + 0.2))
        }
        #expect(meter.fillingQueue(at: .seconds(0.9)) != nil && meter.fillingQueue(at: .seconds(1.5)) == nil)
    }

    /// 1.92 Mbit/s from a 2 Mbit/s cap, a 1200-byte packet every 5 ms; from 0.5 s one in four
    /// NACKed by the clock, each `wait(t)` beyond the round trip after the packet following it
    /// left at t seconds. The estimate at 1.2 s, before the window of those packets is judged
    /// (a round trip and 250 ms after its last packet left, at 1 s).
    private static func beforeTheirWindow(nacksWaiting wait: (Double) -> Double) -> SendSideBandwidthEstimator {
        var estimator = SendSideBandwidthEstimator(cap: 2_000_000, feedbackKind: .receiverReports)
        var nacks: [Int: (lost: Int, waited: Double)] = [:]
        for lost in stride(from: 100, to: 240, by: 4) {
            let successorLeft = 0.005 * Double(lost + 1)
            nacks[Int(((successorLeft + 0.1 + wait(successorLeft)) / 0.005).rounded(.up))] = (lost, wait(successorLeft))
        }
        for i in 0...240 {
            let now = Instant.zero + .milliseconds(Int64(5 * i))
            _ = estimator.onPacketSent(size: 1200, at: now, sequenceNumber: UInt16(i))
            if let nack = nacks[i] {
                estimator.onNack(sequenceNumbers: [UInt16(nack.lost)], waited: .seconds(nack.waited), at: now)
            }
        }
        return estimator
    }

    @Test func estimator_nacksByTheClockOfAFillingQueue_backOffBeforeItOverflows() {
        // Waits growing by half of each second of sending: the NACKs tell of a queue of 0.1 s and
        // more that fills from 0.9 s, and once the send rate has been measured for a second the
        // estimate lands at 0.8 of what the path carries, 1.92 / 1.5 Mbit/s, long before a tbf
        // with 200 ms of latency would drop.
        let filling = Self.beforeTheirWindow { 0.06 + 0.5 * ($0 - 0.5) }
        let carried = 1_920_000 / 1.5
        #expect(abs(filling.lossBasedBitrate - 0.8 * carried) < 0.02 * carried, "\(filling.lossBasedBitrate)")
        // For the next second the queue drains: paced at 0.8 of the target, not 1.2.
        let target = Double(filling.target(at: .seconds(1.2)).bitrate)
        #expect(filling.pacingRate(at: .seconds(1.2)) == 0.8 * target)
        #expect(filling.pacingRate(at: .seconds(2.5)) == 1.2 * target)
        // Waits that stand, or grow but stay shallow, wait for their window.
        #expect(Self.beforeTheirWindow { _ in 0.15 }.lossBasedBitrate == 2_000_000)
        #expect(Self.beforeTheirWindow { 0.01 + 0.1 * ($0 - 0.5) }.lossBasedBitrate == 2_000_000)
    }

    @Test func nackLoss_withNothingSentSinceTheWindowBegan_judgesNothingAgain() {
        // Half of 0…199 lost; the window is taken, then the rate lowered, and nothing leaves
        // until 1.5 s (a still screen, a pacer holding frames for the link).
        var meter = NackLossMeter()
        for i in 0..<200 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(5 * i))) }
        meter.recordNack((0..<100).map { UInt16(2 * $0) })
        #expect(meter.takeLossRatio(at: .seconds(1.2), settle: .milliseconds(100))?.ratio == 0.5)
        #expect(meter.takeLossRatio(at: .seconds(1.3), settle: .milliseconds(100)) == nil)
        meter.restart()
        #expect(meter.takeLossRatio(at: .seconds(1.4), settle: .milliseconds(100)) == nil)
        // The packets sent from then on make the next window, and they all arrived.
        for i in 200..<320 { meter.recordSent(sequenceNumber: UInt16(i), at: .zero + .milliseconds(Int64(1500 + 5 * (i - 200)))) }
        #expect(meter.takeLossRatio(at: .seconds(2.3), settle: .milliseconds(100))?.ratio == 0)
    }

    @Test func lossRules_behindAQueue_halveAtLeast_otherwiseByHalfTheLoss() {
        var estimator = LossBasedEstimator(bitrate: 2_000_000)
        // 40 % lost of 2 Mbit/s behind a standing queue: at most 1.2 Mbit/s got
        // through, and the receiver may have asked for only some of its losses: half.
        estimator.update(lossRatio: 0.4, sending: 2_000_000, overrun: true, at: .seconds(1))
        #expect(estimator.bitrate == 1_000_000)
        // 5 % with no queue in front: the path is full; hold at what it delivers.
        estimator.update(lossRatio: 0.05, sending: 1_000_000, at: .seconds(2))
        #expect(estimator.bitrate == 950_000)
        // The path ran out where 1.2 Mbit/s got through; 950 kbit/s is below 0.9 of that, so
        // growth is 16 % a second, a second after the last loss (the 5 % with no queue says
        // nothing of where it runs out), and stops at 0.9 of it.
        estimator.update(lossRatio: 0, sending: 950_000, at: .seconds(3))
        #expect(abs(estimator.bitrate - 1_080_000) < 1)
        // Sending little: low loss lets it grow no further than 1.2 × what is sent.
        estimator.update(lossRatio: 0, sending: 200_000, at: .seconds(4))
        #expect(abs(estimator.bitrate - 1_080_000) < 1)
        // 70 % lost behind a queue that stands full: the NACKs name drops, not late packets, and
        // what got through is the landing, down to a quarter; however much, no lower. Where the
        // queue was not seen to stand, half.
        var standing = LossBasedEstimator(bitrate: 2_000_000)
        standing.update(lossRatio: 0.7, sending: 2_000_000, overrun: true, queueStands: true, at: .seconds(1))
        #expect(abs(standing.bitrate - 600_000) < 1)
        var emptied = LossBasedEstimator(bitrate: 2_000_000)
        emptied.update(lossRatio: 0.95, sending: 2_000_000, overrun: true, queueStands: true, at: .seconds(1))
        #expect(emptied.bitrate == 500_000)
        var unseen = LossBasedEstimator(bitrate: 2_000_000)
        unseen.update(lossRatio: 0.7, sending: 2_000_000, overrun: true, at: .seconds(1))
        #expect(unseen.bitrate == 1_000_000)
        // 3 % told of from behind a full queue is the bottleneck's tail drop all the same: half.
        var undercounted = LossBasedEstimator(bitrate: 2_000_000)
        undercounted.update(lossRatio: 0.03, sending: 2_000_000, overrun: true, at: .seconds(1))
        #expect(undercounted.bitrate == 1_000_000)
        // Heavier loss with no queue in front of it (a burst, or random): half of it.
        var burst = LossBasedEstimator(bitrate: 2_000_000)
        burst.update(lossRatio: 0.2, sending: 2_000_000, at: .seconds(1))
        #expect(burst.bitrate == 1_800_000)
        // A little loss with no queue, as 2 % lost at random often reads: growth stops.
        var random = LossBasedEstimator(bitrate: 2_000_000)
        random.update(lossRatio: 0.03, sending: 2_000_000, at: .seconds(1))
        #expect(random.bitrate == 2_000_000)
        // ...no higher than growth could have gone from what is sent.
        random.update(lossRatio: 0.03, sending: 1_000_000, at: .seconds(2))
        #expect(random.bitrate == 1_210_000)
        // More than random loss of 2 % reads as but once in twenty windows: hold at what got through.
        random.update(lossRatio: 0.06, sending: 1_000_000, at: .seconds(3))
        #expect(random.bitrate == 940_000)
        // Counted from transport-wide feedback, a little loss holds at what got through.
        var counted = LossBasedEstimator(bitrate: 2_000_000, lossCountedByNacks: false)
        counted.update(lossRatio: 0.03, sending: 2_000_000, at: .seconds(1))
        #expect(counted.bitrate == 1_940_000)
    }

    @Test func lossRules_oneBackOffLandsNoLowerThanHalf_whateverDipsWhatIsSent() {
        // 30 % loss reported while the sender, draining a keyframe, sent
        // 300 kbit/s of its 1.6 Mbit/s; or 80 % asked for at full rate: half
        // of 1.6 Mbit/s either way, not 210 or 320 kbit/s.
        var dip = LossBasedEstimator(bitrate: 1_600_000)
        dip.update(lossRatio: 0.3, sending: 300_000, overrun: true, at: .seconds(1))
        #expect(dip.bitrate == 800_000)
        var heavy = LossBasedEstimator(bitrate: 1_600_000)
        heavy.update(lossRatio: 0.8, sending: 1_600_000, overrun: true, at: .seconds(1))
        #expect(heavy.bitrate == 800_000)
    }

    @Test func lossRules_growGentlyFromWhatGotThrough_fastWhereNoLossWasSeen() {
        // Half of 8 Mbit/s got through: that is where the path ran out, so
        // growth from there is 2 % a second (more than a packet per response time at 4 Mbit/s).
        var overrun = LossBasedEstimator(bitrate: 8_000_000)
        overrun.update(lossRatio: 0.5, sending: 8_000_000, overrun: true, at: .seconds(1))
        #expect(overrun.bitrate == 4_000_000)
        overrun.update(lossRatio: 0, sending: 4_000_000, at: .seconds(2))
        #expect(abs(overrun.bitrate - 4_080_000) < 1)
        // Half of 1.2 Mbit/s: at 600 kbit/s a packet per response time is more than 2 %: three
        // packets a frame at 30 fps, 6667 bits each, every 200 ms (RTT 100 ms and 100 ms).
        var low = LossBasedEstimator(bitrate: 1_200_000)
        low.update(lossRatio: 0.5, sending: 1_200_000, overrun: true, at: .seconds(1))
        #expect(low.bitrate == 600_000)
        low.update(lossRatio: 0, sending: 600_000, roundTrip: .milliseconds(100), at: .seconds(2))
        #expect(abs(low.bitrate - (600_000 + 20_000.0 / 3 / 0.2)) < 1)
        // A quarter lost: halved to 4 Mbit/s, but 6 Mbit/s got through, so growth speeds up
        // with each second since that loss (16 % in the first, 24 % in the next) up to 0.9 of
        // that, 5.4 Mbit/s, and is 2 % a second from there.
        var quarter = LossBasedEstimator(bitrate: 8_000_000)
        quarter.update(lossRatio: 0.25, sending: 8_000_000, overrun: true, at: .seconds(0))
        #expect(quarter.bitrate == 4_000_000)
        quarter.update(lossRatio: 0, sending: quarter.bitrate, at: .seconds(1))
        #expect(abs(quarter.bitrate - 4_640_000) < 1)
        quarter.update(lossRatio: 0, sending: quarter.bitrate, at: .seconds(2))
        #expect(abs(quarter.bitrate - 5_400_000) < 1)
        quarter.update(lossRatio: 0, sending: quarter.bitrate, at: .seconds(3))
        #expect(abs(quarter.bitrate - 5_400_000 * 1.02) < 1)
        // No loss ever seen: 8 % a second.
        var fresh = LossBasedEstimator(bitrate: 1_000_000)
        fresh.update(lossRatio: 0, sending: 1_000_000, at: .seconds(1))
        fresh.update(lossRatio: 0, sending: 1_000_000, at: .seconds(2))
        #expect(abs(fresh.bitrate - 1_080_000) < 1)
    }

    @Test func lossRules_pastWhereThePathRanOut_growthSpeedsUpEachSecondUntilLoss() {
        // Half of 8 Mbit/s got through: the path ran out at 4 Mbit/s, and growth near it is 2 % a
        // second. Sending a tenth past it with no loss, the path has changed (a link stepped up): 8 %
        // a second, then 16, 24 and at most 32, until a window loses 2 % or more: it stops growth,
        // and the climb after it starts again at 8 %.
        var estimator = LossBasedEstimator(bitrate: 8_000_000)
        estimator.update(lossRatio: 0.5, sending: 8_000_000, overrun: true, at: .seconds(0))
        for second in 1...5 { estimator.update(lossRatio: 0, sending: estimator.bitrate, at: .seconds(Double(second))) }
        var expected: Double = 4_000_000 * pow(1.02, 5)
        #expect(abs(estimator.bitrate - expected) < 1)
        for (second, rate) in [(6, 0.08), (7, 0.16), (8, 0.24), (9, 0.32), (10, 0.32)] {
            estimator.update(lossRatio: 0, sending: 16_000_000, at: .seconds(Double(second)))
            expected *= 1 + rate
            #expect(abs(estimator.bitrate - expected) < 1, "at \(second) s")
        }
        estimator.update(lossRatio: 0.03, sending: 16_000_000, at: .seconds(11))
        #expect(abs(estimator.bitrate - expected) < 1)
        estimator.update(lossRatio: 0, sending: 16_000_000, at: .seconds(12))
        #expect(abs(estimator.bitrate - expected * 1.08) < 1)
    }

    @Test func lossRules_pastWhereThePathRanOut_isJudgedByWhatIsSent_notByTheEstimate() {
        // The path ran out at 4 Mbit/s. The estimate grows 2 % a second near there and passes 1.1 of
        // it at 5 s, but what is sent, 0.9 of the estimate, stays under 4.4 Mbit/s until 10 s: the
        // path is not yet shown to have changed, so growth stays at 2 % a second. Once what is sent
        // passes 4.4 Mbit/s with no loss, growth speeds up to 8 % a second.
        var estimator = LossBasedEstimator(bitrate: 8_000_000)
        estimator.update(lossRatio: 0.5, sending: 8_000_000, overrun: true, at: .seconds(0))
        var expected = 4_000_000.0
        for second in 1...10 {
            estimator.update(lossRatio: 0, sending: 0.9 * estimator.bitrate, at: .seconds(Double(second)))
            expected *= 1.02
            #expect(abs(estimator.bitrate - expected) < 1, "at \(second) s")
        }
        #expect(estimator.bitrate > 1.1 * 4_000_000 && 0.9 * expected < 1.1 * 4_000_000)
        estimator.update(lossRatio: 0, sending: 4_500_000, at: .seconds(11))
        #expect(abs(estimator.bitrate - expected * 1.08) < 1)
    }

    @Test func lossRules_anEstimateAboveWhereThePathRanOut_isUntriedUntilWhatIsSentPassesIt() {
        // Half of 8 Mbit/s got through: at 4 Mbit/s the estimate is where the path ran out, and
        // tried; a second's growth takes it above, untried, and so it stays while what is sent
        // stays under 1.1 of that; sending 4.5 Mbit/s without loss shows the path carries more.
        var estimator = LossBasedEstimator(bitrate: 8_000_000)
        #expect(!estimator.isAboveWhereThePathRanOut, "no loss yet, so nowhere the path ran out")
        estimator.update(lossRatio: 0.5, sending: 8_000_000, overrun: true, at: .seconds(0))
        #expect(!estimator.isAboveWhereThePathRanOut)
        estimator.update(lossRatio: 0, sending: 4_000_000, at: .seconds(1))
        #expect(estimator.isAboveWhereThePathRanOut)
        estimator.update(lossRatio: 0, sending: 4_300_000, at: .seconds(2))
        #expect(estimator.isAboveWhereThePathRanOut)
        estimator.update(lossRatio: 0, sending: 4_500_000, at: .seconds(3))
        #expect(!estimator.isAboveWhereThePathRanOut)
    }

    @Test func lossRules_anOverrunToldTwice_landsWhereThePathRanOutNoLower() {
        // A second back-off of one overrun told twice: 31 % of 1.1 Mbit/s lost says the path ran
        // out at 0.9 Mbit/s (as the estimate that sends it), but the two land at 1 Mbit/s, so it
        // ran out no lower than that. Sending 0.93 Mbit/s from there is under 1.1 of it: the
        // estimate stays above where the path ran out, not past it, and grows at the near pace.
        var estimator = LossBasedEstimator(bitrate: 2_000_000, applicationShare: 0.85)
        estimator.update(lossRatio: 0.31, sending: 1_100_000, overrun: true, at: .seconds(0))
        estimator.landOneOverrunToldTwice(at: 1_000_000)
        #expect(estimator.bitrate == 1_000_000)
        #expect(!estimator.isAboveWhereThePathRanOut)
        estimator.update(lossRatio: 0, sending: 930_000, at: .seconds(1))
        #expect(estimator.isAboveWhereThePathRanOut)
        #expect(estimator.bitrate < 1_060_000, "\(estimator.bitrate)")
    }

    @Test func applicationLimit_entersBelow65PercentAndLeavesAbove80() {
        var detector = ApplicationLimitDetector()
        var changes: [ApplicationLimitDetector.Change] = []
        // 0–1 s at 1 Mbit/s, 1–2 s at 200 kbit/s, 2–3 s at 1 Mbit/s, against a 1 Mbit/s estimate.
        for ms in stride(from: 0, to: 3000, by: 10) {
            let now = Instant.zero + .milliseconds(Int64(ms))
            detector.recordSent(bytes: (1000...1999).contains(ms) ? 250 : 1250, at: now)
            if let change = detector.update(estimate: 1_000_000, at: now) { changes.append(change) }
        }
        #expect(changes == [.entered, .left])
    }

    @Test func probeResult_isTheReceiveRateWhenThePathLimitsIt() {
        var results = ProbeResultEstimator()
        let cluster = ProbeCluster(id: 1, bitrate: 3_000_000, packetCount: 6, bytes: 7200)
        results.expect(cluster, at: .zero)
        var measured: Double?
        for i in 0..<6 {
            // Sent 3.2 ms apart (3 Mbit/s), received 6.4 ms apart (1.5 Mbit/s).
            let entry = SentPacketLog.Entry(
                sequenceNumber: Int64(i), size: 1200, sendTime: .zero + .microseconds(Int64(3200 * i)),
                kind: .probe(cluster: 1), arrival: .microseconds(Int64(50_000 + 6400 * i)))
            if let result = results.add(entry) { measured = result.bitrate }
        }
        #expect(abs(measured! - 0.95 * 1_500_000) < 1)
    }
}
