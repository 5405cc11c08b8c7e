import Media
import Testing
@testable import RTP

struct PacerTests {
    /// Drains the pacer on simulated time, returning each packet's send time.
    static func drain(_ pacer: inout Pacer, from start: Instant) -> [Instant] {
        var now = start
        var sent: [Instant] = []
        while let next = pacer.nextSendTime(now: now) {
            now = next
            while pacer.dequeue(now: now) != nil { sent.append(now) }
        }
        return sent
    }

    @Test func keyframe_200KB_spreadOverTime() {
        // 2.5 Mbit/s target × 2.5 = 6.25 Mbit/s: 200 KB (1.6 Mbit) takes 256 ms.
        let rate = 2_500_000 * Pacer.defaultRateMultiplier
        var pacer = Pacer(rateBitsPerSecond: rate)
        let packets = 200_000 / 1200 + 1
        for _ in 0..<packets {
            let accepted = pacer.enqueue(size: 1200)
            #expect(accepted)
        }
        #expect(pacer.queuedBytes == packets * 1200)

        let start = Instant.seconds(10)
        let sent = Self.drain(&pacer, from: start)
        #expect(sent.count == packets)
        #expect(pacer.queuedPackets == 0)

        // At 0 ms the first burst leaves; the last packet near 255 ms, not at once.
        let span = (sent.last! - start).inMilliseconds
        #expect(span > 240 && span < 260)

        // No 10 ms window carries more than 10 ms of rate plus the burst allowance.
        let perWindowLimit = Int((rate * 0.015) / 8 / 1200) + 1
        for (index, time) in sent.enumerated() {
            let inWindow = sent[index...].prefix { $0 - time < .milliseconds(10) }.count
            #expect(inWindow <= perWindowLimit)
        }
    }

    @Test func fullQueue_dropsAndCounts() {
        var pacer = Pacer(rateBitsPerSecond: 1_000_000, queueCapacity: 100)
        for _ in 0..<150 { pacer.enqueue(size: 1200) }
        #expect(pacer.queuedPackets == 100)
        #expect(pacer.droppedPackets == 50)
    }

    @Test func idlePacer_sendsImmediately() {
        var pacer = Pacer(rateBitsPerSecond: 1_000_000)
        let now = Instant.seconds(1)
        #expect(pacer.nextSendTime(now: now) == nil)
        pacer.enqueue(size: 500)
        #expect(pacer.nextSendTime(now: now) == now)
        #expect(pacer.dequeue(now: now) == 500)
    }

    @Test func outOfQueueSend_chargesBucket() {
        // At 1 Mbit/s, 12 500 bytes is 100 ms; with a 5 ms allowance the next may go at 95 ms.
        var pacer = Pacer(rateBitsPerSecond: 1_000_000)
        let start = Instant.seconds(0)
        #expect(pacer.canSend(now: start))
        pacer.didSend(size: 12_500, now: start)
        #expect(!pacer.canSend(now: start + .milliseconds(90)))
        #expect(pacer.canSend(now: start + .milliseconds(95)))
        pacer.enqueue(size: 100)
        #expect(pacer.nextSendTime(now: start) == start + .milliseconds(95))
    }

    // MARK: Bursts when the link has room (docs/behaviour.md §7.5)

    /// 4 Mbit/s × 2.5: the pacing rate of a share at its cap.
    static let roomRate = 4_000_000 * Pacer.defaultRateMultiplier

    static func enqueue(_ pacer: inout Pacer, bytes: Int, mayBurst: Bool) {
        for _ in 0..<(bytes / 1200) { pacer.enqueue(size: 1200, mayBurst: mayBurst) }
    }

    @Test func ordinaryFrameAfterIdle_leavesAtOnce_whenTheLinkHasRoom() {
        // A full-page change of 96 KB: 77 ms at 10 Mbit/s if spread; the savings cover it.
        var pacer = Pacer(rateBitsPerSecond: Self.roomRate)
        pacer.burstBudget = Pacer.burstBudget(linkIsTheLimit: false)
        let start = Instant.seconds(10)
        Self.enqueue(&pacer, bytes: 96_000, mayBurst: true)
        let sent = Self.drain(&pacer, from: start)
        #expect(sent.count == 80)
        #expect(sent.allSatisfy { $0 == start })
    }

    @Test func keyframe_isSpreadWhateverWasSaved() {
        var pacer = Pacer(rateBitsPerSecond: Self.roomRate)
        pacer.burstBudget = Pacer.burstBudget(linkIsTheLimit: false)
        let start = Instant.seconds(10)
        Self.enqueue(&pacer, bytes: 96_000, mayBurst: false)
        let sent = Self.drain(&pacer, from: start)
        // 96 KB at 10 Mbit/s: the last leaves about 72 ms in (77 ms less the 5 ms allowance).
        let span = (sent.last! - start).inMilliseconds
        #expect(span > 70 && span < 75)
    }

    @Test func linkThatIsTheLimit_spreadsEveryFrame() {
        var pacer = Pacer(rateBitsPerSecond: Self.roomRate)
        pacer.burstBudget = Pacer.burstBudget(linkIsTheLimit: true)
        let start = Instant.seconds(10)
        Self.enqueue(&pacer, bytes: 96_000, mayBurst: true)
        let span = (Self.drain(&pacer, from: start).last! - start).inMilliseconds
        #expect(span > 70 && span < 75)
    }

    @Test func savings_areCappedAtTheBudget() {
        // After ten idle seconds a 240 KB frame: 105 ms of the rate (131 KB) at once, the rest spread.
        var pacer = Pacer(rateBitsPerSecond: Self.roomRate)
        pacer.burstBudget = Pacer.burstBudget(linkIsTheLimit: false)
        let start = Instant.seconds(10)
        Self.enqueue(&pacer, bytes: 240_000, mayBurst: true)
        let sent = Self.drain(&pacer, from: start)
        let atOnce = sent.filter { $0 == start }.count
        #expect(atOnce == Int((Self.roomRate * 0.105) / 8 / 1200) + 1)
        // 240 KB is 192 ms at the rate; 105 ms of it was saved.
        let span = (sent.last! - start).inMilliseconds
        #expect(span > 84 && span < 90)
    }

    @Test func steadyFrames_eachLeaveAtOnce_theSavingsRefillBetweenThem() {
        // 30 fps of 24 KB frames (5.8 Mbit/s, above the 4 Mbit/s target but under the pacing rate).
        var pacer = Pacer(rateBitsPerSecond: Self.roomRate)
        pacer.burstBudget = Pacer.burstBudget(linkIsTheLimit: false)
        let period = Duration.nanoseconds(1_000_000_000 / 30)
        for frame in 0..<60 {
            let at = Instant.seconds(10) + period * frame
            Self.enqueue(&pacer, bytes: 24_000, mayBurst: true)
            #expect(Self.drain(&pacer, from: at).allSatisfy { $0 == at })
        }
    }

    @Test func frameBehindAKeyframe_waitsForIt() {
        var pacer = Pacer(rateBitsPerSecond: Self.roomRate)
        pacer.burstBudget = Pacer.burstBudget(linkIsTheLimit: false)
        let start = Instant.seconds(10)
        Self.enqueue(&pacer, bytes: 60_000, mayBurst: false)
        Self.enqueue(&pacer, bytes: 12_000, mayBurst: true)
        let sent = Self.drain(&pacer, from: start)
        // The keyframe's 50 packets are spread; the next frame's 10 follow them at the rate.
        #expect(sent.count == 60)
        #expect((sent[59] - start).inMilliseconds > 50)
    }

    @Test func retransmission_goesAheadOfTheQueue() {
        var pacer = Pacer(rateBitsPerSecond: 960_000, burstAllowance: .zero)
        for _ in 0..<3 { pacer.enqueue(size: 1200) }
        pacer.enqueueFirst(size: 600)
        #expect(pacer.queuedPackets == 4)
        #expect(pacer.dequeue(now: .seconds(1)) == 600)
        #expect(pacer.queueDelay == .milliseconds(30))
    }

    @Test func probePackets_leaveAtTheirOwnRate() {
        // Pacing at 1 Mbit/s; five 250-byte probe packets at 4 Mbit/s leave
        // 0.5 ms apart, then the media packet behind them 2 ms after the last.
        var pacer = Pacer(rateBitsPerSecond: 1_000_000, burstAllowance: .zero)
        for _ in 0..<5 { pacer.enqueue(size: 250, rate: 4_000_000) }
        pacer.enqueue(size: 250)
        let start = Instant.seconds(3)
        let sent = Self.drain(&pacer, from: start).map { ($0 - start).inMilliseconds }
        #expect(sent.count == 6)
        for (index, time) in sent.prefix(5).enumerated() { #expect(abs(time - 0.5 * Double(index)) < 0.001) }
        #expect(abs(sent[5] - 2.5) < 0.001)
    }
}
