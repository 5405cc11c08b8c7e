import Media

/// Loss from NACKs: a receiver that asks again for 5 % of what was sent is
/// losing 5 %, whether or not it sends receiver reports (a receiver under
/// heavy loss may send none for many seconds).
///
/// Loss is counted by sequence number against the packets it is about, not
/// against those sent while the NACKs came: behind a full bottleneck queue
/// a NACK comes back a few hundred milliseconds after its packet left, and
/// counting by arrival window read a 50 % overrun as 20 %. Each number
/// counts once however often it is asked for; keyframe requests add
/// nothing, since they follow loss already counted.
public struct NackLossMeter: Sendable {
    /// A window of packets is judged once it spans this long: an overrun
    /// is answered within a second of its NACKs, and a keyframe's burst of
    /// loss is a share of a window rather than all of one.
    static let window: Duration = .milliseconds(500)
    /// Fewer packets sent than this in the window say too little.
    static let minimumPackets = 20
    /// Packets remembered: over ten seconds at 1.5 Mbit/s, and a bound on
    /// what a receiver's NACKs can make the meter hold.
    static let capacity = 4096

    /// A NACK this long beyond the round trip after the packet following
    /// its newest loss left may come from behind a standing queue, where a
    /// bottleneck overruns.
    static let standingQueue: Duration = .milliseconds(250)
    /// Until the first back-off, the rate is one no path has been shown to carry (a start from the
    /// cap), and a NACK is late from this: no more than a receiver's jitter buffer waits (rtpbin's
    /// latency is 200 ms by default), since behind a deeper queue it gives packets up as late and
    /// asks for fewer. At 250 ms throughout, the waits behind a tbf with 200 ms of latency
    /// (0.16–0.25 s) left the first window of loss unconfirmed in 15 starts from the cap of 30; at
    /// 200 ms throughout, held NACKs under 2 % random loss confirmed queues that were not there,
    /// and the estimate stood at 0.70–0.79 of such a link, not 0.85–1.03 (Motion into rtpbin).
    static let standingQueueAtTheStart: Duration = .milliseconds(200)
    /// How late a NACK must come to be late: `standingQueueAtTheStart`, then, once the rate has
    /// been lowered (`restart`), `standingQueue`.
    private(set) var lateFrom = NackLossMeter.standingQueueAtTheStart
    /// A standing queue delays every NACK, so one alone, however late, says
    /// too little: a receiver under RFC 4585 may hold its feedback until its
    /// next regular report (rtpbin on loopback sent NACKs 190–770 ms after the
    /// packet that showed the gap, and others between them within 15 ms).
    /// Only a second within this long, as late, says a queue stands.
    static let queueEvidenceSpan: Duration = .seconds(1)
    /// ...and only when those late NACKs name this many losses between them: a receiver that holds
    /// its NACKs for its regular reports (rtpbin sent them only every 485 ms, each naming the losses
    /// since the last) makes a single random loss late about one report in four, and two such in a
    /// row halved a 0.6 Mbit/s estimate on a 1.5 Mbit/s link with 2 % lost at random. Behind a full
    /// queue its reports named 4 to 18 losses each.
    static let queueEvidenceLosses = 5
    /// A NACK for a packet whose successor left less than this beyond the
    /// round trip tells a loss from a guess by the clock too little to count:
    /// rtpbin on loopback, idle, asked every 7 ms for the next few numbers,
    /// those sent 0–5 ms before among ones not sent yet, with 0.5 % lost, and
    /// those read as 6.5 % lost. Behind a real path a loss is told of a
    /// round trip and a queue's wait after its successor left.
    public static let tooYoungToTell: Duration = .milliseconds(20)
    /// Late NACKs remembered, a bound on what a receiver can make the meter hold.
    static let lateNacksKept = 32
    /// How long beyond the round trip each NACK came after the packet following its newest loss
    /// left: behind a queue that grows, that wait grows as the packets are sent. At least this many
    /// NACKs, over at least `queueGrowthSpan` of sending, say how fast; fewer could be a receiver
    /// that holds some NACKs for its regular reports (rtpbin: up to 485 ms).
    static let queueGrowthSamples = 8
    static let queueGrowthSpan: Duration = .milliseconds(300)
    /// A full queue's tail drop brings NACKs many times a second; random loss of 2 % at 1 Mbit/s,
    /// about two. With two NACKs naming five losses enough, held NACKs under 2 % random loss said a
    /// queue stood 1.4 s after a halving to 1 Mbit/s on a 1.5 Mbit/s link, and the estimate halved
    /// again to 0.5 and used 46 % of the link (rtpbin behind a tbf).
    static let queueStandsSamples = 8
    static let waitsKept = 128
    /// A receiver that asks by its clock NACKs each packet a growing queue holds back, every
    /// 20 ms or so, long before the queue overflows: behind a 1.5 Mbit/s tbf with 200 ms of
    /// latency, rtpbin's NACKs waited 63 ms beyond the round trip, then 100 ms 0.15 s later, and
    /// the tbf dropped only from 0.2 s, half a second after the first. `fillingQueue` reads that
    /// from the NACKs of the last `fillingEvidence`, once they span this much sending...
    static let fillingSpan: Duration = .milliseconds(150)
    static let fillingEvidence: Duration = .milliseconds(500)
    /// ...and the newest waited this long: a keyframe paced at 1.2 × a target at the link queues
    /// 50 ms or less, and its NACKs' waits grow as fast while it leaves.
    static let fillingDepth: Duration = .milliseconds(100)

    private struct Sent: Sendable {
        var sequenceNumber: UInt16
        var at: Instant
        var lost = false
        /// When the late NACK that told of it came, if it was one, and how long beyond the round
        /// trip the packet after it had waited: the queue's wait.
        var lateNack: (at: Instant, waited: Duration)?
    }

    private var sent = [Sent?](repeating: nil, count: NackLossMeter.capacity)
    private var newest: UInt16?
    /// The first packet of the window not judged yet.
    private var windowFirst: UInt16?
    /// Packets sent before this begin no window: they met the queue an overrun left.
    private var judgedFrom: Instant?
    /// Whether the receiver has ever NACKed: only then is a window without
    /// NACKs a window without loss.
    public private(set) var receiverNacks = false
    /// The packets its NACKs have named as lost, each once: how much it says it lost, in all.
    public private(set) var lossesNamed = 0
    /// Of the numbers its NACKs named lately, how many were guesses (still on
    /// their way, or not sent yet) and how many in all.
    private var named = (guesses: 0, all: 0)
    /// When the NACKs that came `lateFrom` late came, and how many losses each named first.
    private var lateNacks: [(at: Instant, fresh: Int)] = []
    /// Each NACK that named a loss first: when the packet after its newest loss left, how long
    /// beyond the round trip the NACK came after that, and when it came.
    private struct Wait: Sendable {
        var sentAt: Instant
        var waited: Duration
        var at: Instant
    }
    private var waits: [Wait] = []
    /// Losses named first once the window that held them had been judged: they count in the next
    /// window. A receiver that holds its NACKs for its regular reports names a window's losses up
    /// to a report interval after they left, and behind a queue later still: rtpbin, reporting
    /// every 520 ms behind a tbf that dropped a third of what was sent, named each window's losses
    /// 15–30 ms after it was judged, and 5 s of windows read nothing lost while the estimate grew.
    private var toldAfterTheirWindow: [UInt16] = []
    static let toldAfterTheirWindowKept = 1024
    /// The last packet sent before the rate was last lowered: losses named late from before then
    /// are the old rate's.
    private var lastSentAtTheOldRate: Instant?
    /// The numbers `named` spans before it is halved, so it follows the receiver as it is now.
    static let namedMemory = 256
    /// A receiver whose NACKs are this much guesswork asks by the clock, not by
    /// gaps: rtpbin busy on loopback named 381 numbers in flight or unsent to 447
    /// sent, with 0.5 % really lost.
    static let guessingShare = 0.25

    public init() {}

    public mutating func recordSent(sequenceNumber: UInt16, at now: Instant) {
        sent[Self.slot(sequenceNumber)] = Sent(sequenceNumber: sequenceNumber, at: now)
        newest = sequenceNumber
        if windowFirst == nil { windowFirst = sequenceNumber }
        // Sent while the queue an overrun left still drains: no window of the new rate begins here.
        if let judgedFrom, now < judgedFrom { windowFirst = sequenceNumber &+ 1 }
    }

    /// Records the numbers one NACK asks for, `waited` beyond the round trip
    /// after the packet following the newest of them left; `guesses`, how
    /// many more it named that were still on their way or not sent yet.
    /// Returns how many were new losses of packets still remembered.
    @discardableResult
    public mutating func recordNack(_ sequenceNumbers: [UInt16], waited: Duration? = nil, guesses: Int = 0,
                                    at now: Instant = .zero) -> Int {
        receiverNacks = true
        named.guesses += guesses
        named.all += guesses + sequenceNumbers.count
        if named.all > Self.namedMemory { named = (named.guesses / 2, named.all / 2) }
        let late = waited.flatMap { $0 >= lateFrom ? (at: now, waited: $0) : nil }
        var fresh = 0
        var newestSentAt: (number: UInt16, at: Instant)?
        for number in sequenceNumbers {
            let index = Self.slot(number)
            guard let packet = sent[index], packet.sequenceNumber == number, !packet.lost else { continue }
            sent[index]?.lost = true
            sent[index]?.lateNack = late
            fresh += 1
            if judged(packet), judgedFrom.map({ packet.at >= $0 }) ?? true, lastSentAtTheOldRate.map({ packet.at > $0 }) ?? true,
               toldAfterTheirWindow.count < Self.toldAfterTheirWindowKept {
                toldAfterTheirWindow.append(number)
            }
            if newestSentAt.map({ packet.at >= $0.at }) ?? true { newestSentAt = (number, packet.at) }
        }
        if let waited, let newestSentAt, let after = sent[Self.slot(newestSentAt.number &+ 1)],
           after.sequenceNumber == newestSentAt.number &+ 1 {
            waits.append(Wait(sentAt: after.at, waited: waited, at: now))
            if waits.count > Self.waitsKept { waits.removeFirst() }
        }
        // A NACK that only asks again (its first answer was lost too, or is on its way) is late
        // because it is a repeat, not because a queue stands: under 2 % random loss, rtpbin's
        // repeats two within a second halved a 560 kbit/s estimate on a 1.5 Mbit/s link.
        if let late, fresh > 0 {
            lateNacks.append((late.at, fresh))
            if lateNacks.count > Self.lateNacksKept { lateNacks.removeFirst() }
        }
        lossesNamed += fresh
        return fresh
    }

    /// Whether a window that held `packet` has been judged.
    private func judged(_ packet: Sent) -> Bool {
        guard let windowFirst else { return false }
        guard let first = sent[Self.slot(windowFirst)], first.sequenceNumber == windowFirst else {
            return newest.map { windowFirst == $0 &+ 1 } ?? false
        }
        return packet.at < first.at
    }

    /// Whether the late NACK that came at `late` had another as late within
    /// `queueEvidenceSpan`, the late ones there naming `queueEvidenceLosses`
    /// between them; nil while such may yet come.
    private func confirmed(_ late: Instant, at now: Instant) -> Bool? {
        guard lateNacks.contains(where: { $0.at == late }) else { return false }
        let span = Self.queueEvidenceSpan
        let near = lateNacks.filter { $0.at - late <= span && late - $0.at <= span }
        if near.count >= 2, near.reduce(0, { $0 + $1.fresh }) >= Self.queueEvidenceLosses { return true }
        return now - late < span ? nil : false
    }

    /// The rate was just lowered: only packets sent from now on tell of the new one, and of
    /// those, only the ones sent from `judgedFrom` on, once what the old rate queued has drained.
    public mutating func restart(judgedFrom: Instant? = nil) {
        lateFrom = Self.standingQueue
        windowFirst = newest.map { $0 &+ 1 }
        toldAfterTheirWindow = []
        lastSentAtTheOldRate = newest.flatMap { sent[Self.slot($0)]?.at }
        self.judgedFrom = judgedFrom
    }

    /// Whether the receiver asks for packets by when it expects them rather
    /// than by the gaps it sees: then a NACK for a packet sent moments ago says
    /// only that the receiver is behind (busy), and only losses told of from
    /// behind a standing queue count.
    public var receiverGuesses: Bool {
        named.all > 0 && Double(named.guesses) >= Self.guessingShare * Double(named.all)
    }

    /// Lost over sent for the next window of packets, once it spans `window`
    /// and enough were sent, counting only packets sent `settle` ago or
    /// earlier (their NACKs have had time to come), and whether most of its
    /// losses were told of from behind a standing queue; then the next
    /// window starts. Windows do not overlap. `queueWait`: the longest that a packet told of
    /// from behind the queue waited in it. `queueGrowth`: how much the NACKs' waits grew per
    /// second of sending over the window, when enough of them came to say.
    public mutating func takeLossRatio(at now: Instant, settle: Duration)
        -> (ratio: Double, behindAQueue: Bool, queueWait: Duration, queueGrowth: Double?)? {
        // A window that starts past the newest packet has nothing in it yet. Taken for one that
        // had wrapped past the memory, it judged the last 4096 packets again, and the next window
        // began before the back-off: the overrun's loss then halved the rate once more, 4 → 2 → 1
        // → 0.5 Mbit/s on a 1.5 Mbit/s link.
        guard var number = windowFirst, let newest, number != newest &+ 1 else { return nil }
        // Packets older than the memory are gone: judge from the oldest kept.
        if newest &- number >= UInt16(Self.capacity) { number = newest &- UInt16(Self.capacity - 1) }
        let judged = now - settle
        var count = 0
        var tally = LossTally()
        var firstAt: Instant?
        var lastAt: Instant?
        var next = number
        let guessing = receiverGuesses
        while true {
            // A number not sent as media (a probe's padding) is no packet of the window.
            if let packet = sent[Self.slot(number)], packet.sequenceNumber == number {
                guard packet.at <= judged else { break }
                firstAt = firstAt ?? packet.at
                lastAt = packet.at
                count += 1
                if packet.lost {
                    // Its window waits until a second late NACK confirms a queue or cannot.
                    guard tallyLoss(packet, guessing: guessing, at: now, into: &tally) else { return nil }
                }
            }
            next = number &+ 1
            if number == newest { break }
            number = next
        }
        guard let firstAt, let lastAt, lastAt - firstAt >= Self.window, count >= Self.minimumPackets else { return nil }
        for number in toldAfterTheirWindow {
            guard let packet = sent[Self.slot(number)], packet.sequenceNumber == number, packet.lost else { continue }
            guard tallyLoss(packet, guessing: guessing, at: now, into: &tally) else { return nil }
        }
        toldAfterTheirWindow = []
        windowFirst = next
        return (min(Double(tally.lost) / Double(count), 1), tally.lost > 0 && 2 * tally.queued >= tally.lost, tally.queueWait,
                queueGrowth(sentFrom: firstAt, to: lastAt))
    }

    private struct LossTally {
        var lost = 0
        var queued = 0
        var queueWait = Duration.zero
    }

    /// Counts a lost packet into `tally`; false while a late NACK that named it may yet be confirmed.
    private func tallyLoss(_ packet: Sent, guessing: Bool, at now: Instant, into tally: inout LossTally) -> Bool {
        var behindAQueue = false
        if let late = packet.lateNack {
            guard let queue = confirmed(late.at, at: now) else { return false }
            behindAQueue = queue
        }
        if behindAQueue || !guessing { tally.lost += 1 }
        if behindAQueue, let late = packet.lateNack {
            tally.queued += 1
            tally.queueWait = max(tally.queueWait, late.waited)
        }
        return true
    }

    /// The least-squares slope of the NACKs' waits against when the packets after their losses
    /// left, over those sent from `first` to `last`.
    private func queueGrowth(sentFrom first: Instant, to last: Instant) -> Double? {
        Self.slope(of: waits.filter { $0.sentAt >= first && $0.sentAt <= last }, spanning: Self.queueGrowthSpan)
    }

    /// How fast a queue grows (per second of sending; under zero, drains), by the NACKs that came
    /// in the last `fillingEvidence` for packets sent since the rate was last lowered, when the
    /// newest says it holds `fillingDepth`; nil when they say too little. Unlike a window's loss,
    /// it need not wait for the packets' NACKs to settle: the waits themselves are the news.
    public func fillingQueue(at now: Instant) -> Double? {
        let recent = waits.filter { wait in
            now - wait.at <= Self.fillingEvidence && judgedFrom.map { wait.sentAt >= $0 } ?? true
        }
        guard let newest = recent.max(by: { $0.sentAt < $1.sentAt }), newest.waited >= Self.fillingDepth,
              let growth = Self.slope(of: recent, spanning: Self.fillingSpan) else { return nil }
        return growth
    }

    /// Whether the NACKs for packets sent from `from` on say a queue still stands `depth` deep: at
    /// least `queueStandsSamples` of them, and each waited that long. The least, not the newest: a
    /// receiver that holds some NACKs for its regular reports makes those wait longer than the
    /// queue did.
    public func queueStands(sentFrom from: Instant, depth: Duration) -> Bool {
        let since = waits.filter { $0.sentAt >= from }
        guard since.count >= Self.queueStandsSamples else { return false }
        return since.allSatisfy { $0.waited >= depth }
    }

    private static func slope(of samples: [Wait], spanning span: Duration) -> Double? {
        guard samples.count >= queueGrowthSamples, let first = samples.map(\.sentAt).min(),
              let last = samples.map(\.sentAt).max(), last - first >= span else { return nil }
        return TrendlineFilter.leastSquaresSlope(samples.map { (x: ($0.sentAt - first).inSeconds, y: $0.waited.inSeconds) })
    }

    private static func slot(_ number: UInt16) -> Int { Int(number) % capacity }
}
