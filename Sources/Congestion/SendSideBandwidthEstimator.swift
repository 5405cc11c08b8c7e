import Media
import RTP

/// The target bitrate for one receiver's path, from whatever the receiver
/// sends back: with transport-wide feedback, queueing delay, loss and
/// probes; with only receiver reports and NACKs, loss; with nothing, the
/// cap. REMB and the call client's cap are ceilings on top.
///
/// A receiver that negotiated transport-wide feedback starts at the start
/// rate and is probed upwards; one that sends none within a second is
/// served as one that did not negotiate it: from the cap, brought down by
/// the loss its reports and NACKs tell of.
///
/// Pure logic on the `Instant`s it is given: the sender tells it each packet
/// it sends (and stamps the transport-wide sequence number it hands back),
/// each piece of feedback, and asks for the target, the pacing rate and
/// whether a probe cluster is due.
public struct SendSideBandwidthEstimator: Sendable {
    /// What the estimate is made from.
    public enum FeedbackKind: Equatable, Sendable {
        /// Transport-wide feedback (negotiated, and heard within a second).
        case transportWide
        /// Receiver reports and NACKs, if any come.
        case receiverReports
    }

    /// What set the target.
    public enum Limit: String, Equatable, Sendable {
        case cap
        case delay
        case loss
        case receiverEstimate
        /// No feedback comes, so nothing is known of the path.
        case noFeedback
        /// Still coming up from the start rate: a probe is out.
        case probing

        /// The path (delay, loss, the receiver's own estimate) sets the target.
        public var isPath: Bool {
            switch self {
            case .delay, .loss, .receiverEstimate: true
            case .cap, .noFeedback, .probing: false
            }
        }
    }

    public struct Target: Equatable, Sendable {
        public var bitrate: Int
        public var limit: Limit
        /// False while the target stands above where loss last said the path ran out, and
        /// nothing sent since has shown that the path carries more.
        public var tried: Bool

        public init(bitrate: Int, limit: Limit, tried: Bool = true) {
            self.bitrate = bitrate
            self.limit = limit
            self.tried = tried
        }
    }

    /// A rate nearly every uplink carries (DSL, LTE, busy Wi-Fi), so the
    /// first keyframe gets through before any feedback; probes take it up
    /// from there within a second.
    public static let startBitrate = 300_000
    /// Below this a screen share's text is unreadable; no estimate goes lower.
    public static let minimumBitrate = 100_000
    /// A REMB older than this no longer limits: the receiver stopped sending them.
    static let receiverEstimateLifetime: Duration = .seconds(5)
    /// Transport-wide loss is judged over at least this many packets and
    /// this long, so 2 % random loss does not read as 10 % in a small sample.
    static let minimumLossSample = 20
    static let lossWindow: Duration = .seconds(1)
    /// Until feedback says otherwise.
    public static let assumedRoundTrip: Duration = .milliseconds(100)
    /// How long after a packet leaves its NACK may still come: a round trip,
    /// and this for what the bottleneck has queued ahead of the packet after
    /// it, whose arrival shows the gap (a tbf's latency, a router's buffer).
    static let overrunDrain: Duration = .milliseconds(250)
    /// How long a keyframe asked for again keeps windows from counting as without loss: about
    /// two of the NACK meter's windows, so the window being judged and the next.
    static let keyframeAskedAgainHolds: Duration = .seconds(1)
    /// After a back-off for an overrun that follows another (`overrunsCloseTogether`), packets sent
    /// within twice the queue's wait (as the NACKs that told of it measured it; the queue drains at
    /// about the rate the halving left it to) meet what is left of that queue, and a keyframe among
    /// them overflows it: judged, such a window halved a start from the cap, sent at 1.2 into a 1.5
    /// Mbit/s link, once more to 0.5 (rtpbin behind a tbf), and the climb back took the rest of the
    /// share; with the wait once, it still did in 4 rows of 12. After the first, the rate may still be
    /// far above the path, and each wait only delayed the next halving: a 4 Mbit/s start then overran
    /// 1.5 Mbit/s past 3 s. No longer than `longestDrain`, so a path that shrank far is still followed
    /// down.
    static let drainPerQueueWait = 2.0
    static let longestDrain: Duration = .seconds(1)
    /// An overrun back-off this soon after another is a second one, even with a window under 2 % lost
    /// between them: a queue filling at a third over the link takes longer than a window to overflow,
    /// so the window after the first halving can read under 2 % lost while the queue still grows.
    /// Counted as a fresh first, the next halving (2 to 1 Mbit/s into 1.5) went unwaited, and the queue
    /// it left halved a third time, to 0.5.
    static let overrunsCloseTogether: Duration = .seconds(3)
    /// An overrun told first by loss whose queue no second late NACK had yet confirmed, and then,
    /// in the very next window, with it confirmed, is one overrun told twice: the window after a
    /// back-off holds packets sent into the queue the overrun left, and its keyframes. Halved
    /// again from the first back-off, the estimate into rtpbin behind a 1.5 Mbit/s tbf went
    /// 1.98 → 1.42 → 0.71 Mbit/s in 0.9 s, and 2.2 → 1.5 → 0.76 in 1.1 s: half the link, and
    /// seconds to climb back. So the two together take off no more than one halving of the rate
    /// before the first.
    static let overrunToldTwiceLandsAt = LossBasedEstimator.overrunDecrease
    /// NACKs whose waits grew by this much per second of sending tell a queue that fills:
    /// what was sent (media and resends) is over the path by that share, so the path carries
    /// what was sent over one plus it. Smaller, a receiver's hold on its NACKs could make it.
    static let fillingQueueGrowth = 0.1
    /// After a back-off behind a queue that waited D, packets sent D later meet it drained to under
    /// this share of D if the rate went to two thirds of the path or less. Still as deep, the rate
    /// is over the path, or so near it that the queue stands for seconds; a receiver whose jitter
    /// buffer waits less than the queue (rtpbin: 200 ms) shows nothing meanwhile. Judged only by
    /// the next window, each halving after a step down from 3 to 0.6 Mbit/s took 2 s: the drain,
    /// the window, and the NACKs' settling, while rtpbin's view stood still.
    static let drainedQueue = 0.8
    /// The estimate rising this much since the last probe (far from any
    /// known ceiling, so by multiplicative steps) means the path has room
    /// the rate control would take many seconds to find: probe it. After
    /// the start, one probe's result lifts the estimate no further than this
    /// above the estimate the media sent fills, so a path with room is
    /// climbed in such steps.
    static let probeAfterIncrease = 1.5
    /// A probe without a result after this is over.
    static let probeTimeout: Duration = .seconds(1)
    /// A receiver sends transport-wide feedback every 50–100 ms; none a
    /// second after the first packet means it will not, whatever it negotiated.
    static let transportFeedbackTimeout: Duration = .seconds(1)
    /// Pacing well above the target spreads a keyframe over a few frame
    /// periods without holding ordinary frames back (WebRTC's 2.5).
    public static let pacingFactor = Pacer.defaultRateMultiplier
    /// When the path sets the target, pacing faster only overflows the
    /// bottleneck's queue: a keyframe then waits in the pacer, where it is not lost.
    public static let pathLimitedPacingFactor = 1.2
    /// While a queue stands on the path: after a back-off the target is about what the path
    /// delivers, so only pacing under it drains that queue (docs/behaviour.md §7.5).
    static let drainingPacingFactor = 0.8

    /// A packet no feedback has told of a round trip and this long after it left is taken as lost:
    /// a tbf drops what overflows its queue, and when nothing arrives after it no feedback ever
    /// tells. Counted to a horizon of 1 s instead, such packets held new frames back for 0.2 s
    /// after the queue behind a step down had drained.
    static let inFlightMargin: Duration = .milliseconds(100)
    /// However long the round trip reads: by then the queue that held a packet has been backed off from.
    static let inFlightHorizon: Duration = .seconds(1)

    public private(set) var feedbackKind: FeedbackKind
    private let applicationShare: Double
    /// Whether any feedback about the path has come (transport-wide, RR, NACK or REMB).
    public private(set) var feedbackHeard = false
    private var firstPacketSent: Instant?
    public private(set) var cap: Int
    private var log = SentPacketLog()
    private var delayEstimate: DelayBasedEstimator
    private var lossBased: LossBasedEstimator
    private var nackLoss = NackLossMeter()
    private var applicationLimit = ApplicationLimitDetector()
    private var probes: ProbeController
    private var probeResults = ProbeResultEstimator()
    private var sending = RateMeter(window: .seconds(1))
    private var receiverEstimate: (bitrate: Int, at: Instant)?
    /// Sender to receiver and back: from transport-wide feedback (an upper
    /// bound: it includes the receiver's wait before it reports) or from
    /// receiver reports; assumed until either says.
    public private(set) var roundTrip = SendSideBandwidthEstimator.assumedRoundTrip
    /// Transport-wide feedback's round trips over the last 10 s. Their least is near the path's
    /// own, since some feedback leaves just as its newest packet arrives (rtpbin sends it at each
    /// frame's end). Not the least ever: a route that lengthens for good would be read as a queue,
    /// and at 300 ms more it held frames to about three quarters of the rate (`pathBacklog`).
    private var transportRoundTrips = WindowedMinimum(bucket: .seconds(1), buckets: 10)
    private var leastTransportRoundTrip: Duration? { transportRoundTrips.least(coveringAtLeast: 1) }
    /// The least of the round trips receiver reports measured (RFC 3550 §6.4.1).
    private var leastReportedRoundTrip: Duration?
    /// How long a lost packet must have been gone before its NACK can come back: the least round
    /// trip receiver reports measured, else transport-wide feedback's. Not the latest: a full
    /// bottleneck queue adds its delay to that, and a NACK for a packet lost at its entrance then
    /// comes back sooner than the round trip. Transport-wide feedback's includes the receiver's
    /// wait, so reports' are preferred.
    public var leastRoundTrip: Duration? { leastReportedRoundTrip ?? leastTransportRoundTrip }
    private var transportLoss = (lost: 0, total: 0, since: Instant?.none)
    private var transportFeedbackHeard = false
    private var lastReceiverReport: Instant?
    private var lastLossBackOff: Instant?
    /// Whether a window of NACK-counted loss, or a receiver report on more than such a window of
    /// sending, has been judged yet.
    private var lossJudged = false
    /// The first back-off for an overrun follows a path that may be far under the rate (a start
    /// at the cap, a link stepped down); by the next, close after it, the rate has been halved twice.
    private var lastOverrunBackOff: Instant?
    /// The last back-off for a queue the NACKs' waits showed filling. Not an overrun back-off for
    /// the rule above: landed under what the path carried, it leaves no queue for the next
    /// overrun's packets to meet. Counted as one, it held back the windows that followed a step
    /// down 2 s later, and the estimate took 3 s to follow the link down from 3 to 0.6 Mbit/s.
    private var lastFillingBackOff: Instant?
    /// How long the queue behind the last back-off (`lastOverrunBackOff`) held packets, as its
    /// NACKs' waits measured it; nil when they measured none, or a back-off for no overrun came since.
    private var overrunQueueWait: Duration?
    /// Until when the queue an overrun left drains, as the NACKs' waits measured it, while no
    /// transport-wide feedback can say when it has.
    private var queueDrainsUntil: Instant?
    /// The estimate before a back-off on loss with no queue confirmed in front of it, until the
    /// NACK meter's next window is judged (`overrunToldTwiceLandsAt`).
    private var beforeUnconfirmedBackOff: Double?
    /// The last window of NACK-counted loss read `LossBasedEstimator.randomLossReading` or more
    /// with no queue told: a second such in a row is an overrun.
    private var lossPersists = false
    /// When the last keyframe's last packet left, the last NACK naming a loss came, and a receiver
    /// last asked for a keyframe that one should already have answered, with no NACK since
    /// (`onKeyframeRequest`).
    private var lastKeyframeLeft: Instant?
    private var lastNack: Instant?
    private var keyframeAskedAgain: Instant?
    /// The last cluster handed out, until its own result comes.
    private var lastProbe: (cluster: Int, started: Instant, answered: Bool)?
    /// The lowest delay-based estimate since the last probe.
    private var lowSinceProbe: Double

    /// - Parameters:
    ///   - feedbackKind: `.transportWide` when the receiver negotiated it.
    ///   - start: where the estimate begins; by default the start rate with
    ///     transport-wide feedback (probes can raise it), the cap without (nothing could).
    ///   - probePacketSize: the size of the packets probes are sent in.
    ///   - applicationShare: how much of the target the sender means to
    ///     use (its encoder aims below it); only sending well under that is application-limited.
    public init(
        cap: Int, feedbackKind: FeedbackKind, start: Int? = nil, probePacketSize: Int = ProbeController.defaultPacketSize,
        applicationShare: Double = 1
    ) {
        self.feedbackKind = feedbackKind
        self.applicationShare = min(max(applicationShare, 0.1), 1)
        self.cap = max(Self.minimumBitrate, cap)
        let preferred = start ?? (feedbackKind == .transportWide ? Self.startBitrate : cap)
        let first = Double(min(max(preferred, Self.minimumBitrate), self.cap))
        delayEstimate = DelayBasedEstimator(bitrate: first)
        lossBased = LossBasedEstimator(bitrate: first, applicationShare: self.applicationShare,
                                       lossCountedByNacks: feedbackKind == .receiverReports)
        lowSinceProbe = first
        probes = ProbeController(packetSize: probePacketSize)
        if feedbackKind == .transportWide { probes.start(from: first, cap: Double(self.cap)) }
    }

    // MARK: What the sender does

    /// Records a packet as it leaves; returns the transport-wide sequence
    /// number to stamp in it. `sequenceNumber`, the RTP one, is what NACKs
    /// will name if it is lost.
    public mutating func onPacketSent(
        size: Int, at now: Instant, kind: SentPacketLog.Kind = .media, sequenceNumber: UInt16? = nil
    ) -> UInt16 {
        if firstPacketSent == nil { firstPacketSent = now }
        if feedbackKind == .transportWide, !transportFeedbackHeard, let first = firstPacketSent,
           now - first >= Self.transportFeedbackTimeout {
            fallBackToReports()
        }
        switch kind {
        case .media, .retransmission:
            countSent(size: size, at: now)
            if kind == .media, let sequenceNumber { nackLoss.recordSent(sequenceNumber: sequenceNumber, at: now) }
        case .padding, .probe:
            break
        }
        // A receiver that NACKs what it loses and has asked for nothing for
        // a whole window lost nothing in it: the loss rules may grow on that.
        if feedbackKind == .receiverReports, nackLoss.receiverNacks { updateLossFromReports(at: now) }
        return log.record(size: size, at: now, kind: kind)
    }

    /// A packet resent byte for byte (no RTX): it keeps the transport-wide
    /// number it first carried, since new bytes under the same SRTP index
    /// are never allowed, so it only counts toward the send rate.
    public mutating func onPacketResent(size: Int, at now: Instant) {
        countSent(size: size, at: now)
    }

    private mutating func countSent(size: Int, at now: Instant) {
        sending.record(size, at: now)
        applicationLimit.recordSent(bytes: size, at: now)
    }

    public mutating func setCap(_ bitrate: Int, at now: Instant) {
        let raised = bitrate > cap
        cap = max(Self.minimumBitrate, bitrate)
        delayEstimate.limit(to: ceiling(at: now), at: now)
        if raised, feedbackKind == .transportWide, delayEstimate.bitrate >= Double(target(at: now).bitrate) {
            probes.recheck(estimate: delayEstimate.bitrate, cap: Double(cap))
        }
    }

    /// A round-trip time measured elsewhere (receiver reports' LSR/DLSR).
    public mutating func onRoundTripTime(_ rtt: Duration) {
        roundTrip = rtt
        leastReportedRoundTrip = min(leastReportedRoundTrip ?? rtt, rtt)
    }

    /// A keyframe's last packet left.
    public mutating func onKeyframeSent(at now: Instant) {
        lastKeyframeLeft = now
    }

    /// The receiver asked for a keyframe (PLI or FIR). Asked for more than a round trip and
    /// `overrunDrain` after the last keyframe left, the request says that keyframe, or what came
    /// after it, was lost; with no NACK since it left, lost without a word: for a while no window
    /// counts as one without loss (`keyframeAskedAgainHolds`). A receiver that NACKed on the way
    /// has its loss counted from those NACKs: under 2 % random loss rtpbin asks for a keyframe
    /// whenever a resend fails, and held for each such request, Motion's target into it stood at
    /// 0.63–0.82 of a 1.5 Mbit/s link, against 0.82–0.90.
    public mutating func onKeyframeRequest(at now: Instant) {
        guard let left = lastKeyframeLeft, now - left > roundTrip + Self.overrunDrain,
              lastNack.map({ $0 < left }) ?? true else { return }
        keyframeAskedAgain = now
    }

    /// The next probe cluster to send, if one is due: `packetCount` packets
    /// of `packetSize` bytes at `bitrate`, each recorded with kind
    /// `.probe(cluster:)`.
    public mutating func pendingProbe(at now: Instant) -> ProbeCluster? {
        guard feedbackKind == .transportWide, let cluster = probes.next() else { return nil }
        probeResults.expect(cluster, at: now)
        delayEstimate.probeStarted(at: now)
        lastProbe = (cluster.id, now, false)
        lowSinceProbe = delayEstimate.bitrate
        return cluster
    }

    // MARK: What the receiver sends back

    public mutating func onTransportFeedback(_ feedback: TransportFeedback, at now: Instant) {
        guard feedbackKind == .transportWide else { return }
        transportFeedbackHeard = true
        feedbackHeard = true
        let entries = log.match(feedback)
        guard let newest = entries.filter({ $0.arrival != nil }).map(\.sendTime).max() else {
            countTransportLoss(entries, at: now)
            return
        }
        // Includes the receiver's wait before it sends feedback: an upper bound, which is the safe side.
        roundTrip = now - newest
        transportRoundTrips.add(roundTrip, at: now - .zero)
        for entry in entries {
            guard let result = probeResults.add(entry) else { continue }
            if lastProbe?.cluster == result.cluster.id { lastProbe?.answered = true }
            let bitrate = min(result.bitrate, probeBound(of: result.cluster, at: now))
            delayEstimate.probeMeasured(bitrate, at: now)
            lossBased.probeMeasured(bitrate)
            probes.resultMeasured(bitrate, of: result.cluster, cap: ceiling(at: now))
        }
        countTransportLoss(entries, at: now)
        let acknowledged = log.acknowledgedBitrate
        let draining = acknowledged.map { log.sentBitrate(over: SentPacketLog.acknowledgedWindow, at: now) < $0 } ?? false
        delayEstimate.update(
            entries, acknowledged: acknowledged.map(asTarget),
            deliveredWhileBusy: (log.busyAcknowledgedBitrate ?? acknowledged).map(asTarget), queueDraining: draining,
            roundTrip: roundTrip, applicationLimited: applicationLimit.isLimited, at: now)
        delayEstimate.limit(to: ceiling(at: now), at: now)
        lowSinceProbe = min(lowSinceProbe, delayEstimate.bitrate)
        // A probe goes at twice what the sender may send now, not twice the delay estimate when
        // loss holds the target far under it: such a probe fits a token bucket's burst, reads as
        // carried, and lifted a 171 kbit/s target on a 0.6 Mbit/s link to 3.2 Mbit/s.
        let current = Double(target(at: now).bitrate)
        if delayEstimate.bitrate >= Self.probeAfterIncrease * lowSinceProbe {
            probes.recheck(estimate: current, cap: ceiling(at: now))
        }
        if applicationLimit.update(estimate: current * applicationShare, at: now) == .left {
            probes.recheck(estimate: current, cap: ceiling(at: now))
        }
    }

    /// `fractionLost` as a receiver report block carries it, 0…1.
    public mutating func onReceiverReport(fractionLost: Double, at now: Instant) {
        feedbackHeard = true
        defer { lastReceiverReport = now }
        // A report's loss covers the time since the one before, seconds apart
        // under loss: if the rate was lowered in that time, the loss is that
        // of the rate before, already answered.
        if fractionLost >= LossBasedEstimator.lowLoss, let backOff = lastLossBackOff,
           lastReceiverReport.map({ backOff > $0 }) ?? true {
            return
        }
        updateLossFromReports(at: now, reported: fractionLost)
    }

    /// The sequence numbers one NACK asks for that were sent and followed;
    /// `waited`, the least time beyond the round trip that the packet after
    /// any of them had been on its way (nil if it names none); `guesses`, how
    /// many more it named that were still on their way or not sent yet.
    public mutating func onNack(sequenceNumbers: [UInt16], waited: Duration? = nil, guesses: Int = 0, at now: Instant) {
        feedbackHeard = true
        if !sequenceNumbers.isEmpty { lastNack = now }
        nackLoss.recordNack(sequenceNumbers, waited: waited, guesses: guesses, at: now)
        // Not before the send rate has been measured over its whole window, which measures the path.
        if feedbackKind == .receiverReports, firstPacketSent.map({ now - $0 >= sending.window }) ?? false,
           [lastOverrunBackOff, lastFillingBackOff].allSatisfy({ $0.map { now - $0 >= Self.overrunsCloseTogether } ?? true }),
           let growth = nackLoss.fillingQueue(at: now), growth >= Self.fillingQueueGrowth {
            backOff(forAQueueFillingAt: growth, at: now)
        }
        if feedbackKind == .receiverReports, let wait = overrunQueueWait, let last = lastOverrunBackOff,
           now - last < Self.overrunsCloseTogether,
           nackLoss.queueStands(sentFrom: last + wait, depth: max(NackLossMeter.standingQueue, wait * Self.drainedQueue)) {
            backOff(forAQueueThatStands: wait, at: now)
        }
        updateLossFromReports(at: now)
    }

    /// A back-off behind a queue left it standing as deep a queue's wait later: the rate is still
    /// over the path (docs/behaviour.md §7.7).
    private mutating func backOff(forAQueueThatStands wait: Duration, at now: Instant) {
        let before = lossBased.bitrate
        lossBased.update(lossRatio: LossBasedEstimator.overrunDecrease, sending: sending.rate(at: now) * 8, overrun: true,
                         applicationLimited: applicationLimit.isLimited, roundTrip: roundTrip, at: now)
        guard lossBased.bitrate < before else { return }
        beforeUnconfirmedBackOff = nil
        backedOff(overrun: true, queueWait: wait, at: now)
    }

    /// The NACKs' waits say a queue fills before it overflows: back off under what the path carries
    /// now, rather than once the queue drops and a window of loss says so (docs/behaviour.md §7.7).
    private mutating func backOff(forAQueueFillingAt growth: Double, at now: Instant) {
        let sent = sending.rate(at: now) * 8
        let before = lossBased.bitrate
        lossBased.update(lossRatio: LossBasedEstimator.lowLoss, sending: sent, overrun: true, carried: sent / (1 + growth),
                         applicationLimited: applicationLimit.isLimited, roundTrip: roundTrip, at: now)
        guard lossBased.bitrate < before else { return }
        beforeUnconfirmedBackOff = nil
        lastFillingBackOff = now
        // An overrun to the loss rules (it sets where the path ran out), not to `lastOverrunBackOff`'s.
        backedOff(overrun: false, queueWait: .zero, at: now)
    }

    public mutating func onREMB(bitrate: Int, at now: Instant) {
        feedbackHeard = true
        receiverEstimate = (bitrate, now)
    }

    // MARK: What the sender asks

    /// The bitrate to aim the encoder at now, and what set it.
    public func target(at now: Instant) -> Target {
        if feedbackKind == .receiverReports, !feedbackHeard { return Target(bitrate: cap, limit: .noFeedback) }
        var best = Target(bitrate: cap, limit: .cap)
        if let estimate = validReceiverEstimate(at: now), estimate < best.bitrate {
            best = Target(bitrate: estimate, limit: .receiverEstimate)
        }
        if feedbackKind == .transportWide, Int(delayEstimate.bitrate) < best.bitrate {
            best = Target(bitrate: Int(delayEstimate.bitrate), limit: probing(at: now) ? .probing : .delay)
        }
        if Int(lossBased.bitrate) < best.bitrate {
            best = Target(bitrate: Int(lossBased.bitrate), limit: .loss, tried: !lossBased.isAboveWhereThePathRanOut)
        }
        best.bitrate = min(max(best.bitrate, Self.minimumBitrate), cap)
        return best
    }

    /// The rate to pace media and retransmissions at. Probe clusters go at their own rate.
    public func pacingRate(at now: Instant) -> Double {
        let target = target(at: now)
        guard target.limit.isPath else { return Double(target.bitrate) * Self.pacingFactor }
        if feedbackKind == .transportWide, delayEstimate.queueStands { return Double(target.bitrate) * Self.drainingPacingFactor }
        if feedbackKind == .receiverReports, let until = queueDrainsUntil, now < until {
            return Double(target.bitrate) * Self.drainingPacingFactor
        }
        return Double(target.bitrate) * Self.pathLimitedPacingFactor
    }

    public var isApplicationLimited: Bool { applicationLimit.isLimited }
    /// The receiver's NACKs name packets before they can have been missed (docs/behaviour.md §7).
    public var nacksAreGuesses: Bool { nackLoss.receiverGuesses }
    /// The packets the receiver's NACKs have named as lost, each once.
    public var lossesNamedByNacks: Int { nackLoss.lossesNamed }

    /// The delay-based estimate and what the delay trend says of the path.
    public var delayBased: (bitrate: Double, usage: BandwidthUsage) { (delayEstimate.bitrate, delayEstimate.usage) }
    public var lossBasedBitrate: Double { lossBased.bitrate }

    /// Whether the packet stamped `transportSequenceNumber` arrived, as transport-wide
    /// feedback told; nil until it has.
    public func heardArrived(transportSequenceNumber: UInt16) -> Bool? {
        feedbackKind == .transportWide ? log.arrived(transportSequenceNumber) : nil
    }

    /// How long what is already on its way will wait in the path's queues beyond the path's own
    /// round trip: the bytes sent since the newest packet transport-wide feedback told of (within
    /// the latest round trip), at the rate the receiver acknowledged lately. Zero without
    /// transport-wide feedback, which alone says what has arrived (docs/behaviour.md §7.5).
    public func pathBacklog(at now: Instant) -> Duration {
        guard feedbackKind == .transportWide, let acknowledged = log.acknowledgedBitrate,
              let least = leastTransportRoundTrip else { return .zero }
        // While a queue builds or stands the bottleneck is busy, and what arrives is what it
        // carries. Otherwise arrivals may have paused while frames waited, and read under the
        // path: taken alone, they held back the frames after the keyframe that ended such a pause
        // for 0.3–0.7 s; the estimate's share for media does not read under it. (Nor the other
        // way: just after a step down the estimate is still the old link's.)
        let busy = delayEstimate.usage == .overusing || delayEstimate.queueStands
        let delivered = busy ? acknowledged : max(acknowledged, Double(target(at: now).bitrate) * applicationShare)
        guard delivered > 0 else { return .zero }
        let horizon = min(roundTrip + Self.inFlightMargin, Self.inFlightHorizon)
        let bits = Double(log.bytesInFlight(sentWithin: horizon, at: now) * 8)
        return max(.zero, .seconds(bits / delivered) - least)
    }

    /// Bits per second the receiver acknowledged lately (transport-wide feedback only).
    public var acknowledgedBitrate: Double? { log.acknowledgedBitrate }

    // MARK: Inside

    /// The receiver negotiated transport-wide feedback but sends none: the
    /// start rate was a guess nothing can raise, so serve it as a receiver
    /// of reports, from the cap.
    private mutating func fallBackToReports() {
        feedbackKind = .receiverReports
        lossBased = LossBasedEstimator(bitrate: Double(cap), applicationShare: applicationShare)
    }

    /// What the receiver acknowledged lately, as the target that sends it: the encoder aims
    /// under the target, so taken bare, each back-off to a share of it took that share again
    /// (4 Mbit/s to 138 kbit/s within a second of a step down to 0.6), and growth stopped just
    /// above it.
    private func asTarget(_ delivered: Double) -> Double { delivered / applicationShare }

    /// The most one probe's result may lift the estimate to: the ceiling, and after the start
    /// no higher than the delay estimate last found the path to deliver, nor half again above
    /// the estimate the media now sent fills (probes' own padding left out). A cluster that fits
    /// a token bucket's burst passes at the rate it was sent at: such results chained Text and
    /// detail from 1.2 back up to 4 Mbit/s on a 1.5 Mbit/s tbf each time it left the
    /// application-limited state, with 6 % of packets dropped, and Motion from 1.7 to 4 Mbit/s,
    /// with 13 %. The start's clusters have neither bound: nothing sent yet says anything of the path.
    private mutating func probeBound(of cluster: ProbeCluster, at now: Instant) -> Double {
        guard !cluster.atStart else { return ceiling(at: now) }
        let sentAsTarget = sending.rate(at: now) * 8 / applicationShare
        return min(ceiling(at: now), delayEstimate.capacityCeiling ?? .infinity, Self.probeAfterIncrease * sentAsTarget)
    }

    private func ceiling(at now: Instant) -> Double {
        Double(min(cap, validReceiverEstimate(at: now) ?? cap))
    }

    private func validReceiverEstimate(at now: Instant) -> Int? {
        guard let estimate = receiverEstimate, now - estimate.at < Self.receiverEstimateLifetime else { return nil }
        return max(Self.minimumBitrate, estimate.bitrate)
    }

    private func probing(at now: Instant) -> Bool {
        // Until the first feedback the start rate is a guess, not a measurement: a size chosen
        // from it would be held for seconds against a path that may have room.
        if feedbackKind == .transportWide, !transportFeedbackHeard { return true }
        guard let lastProbe else { return probes.hasPending }
        return probes.hasPending || (!lastProbe.answered && now - lastProbe.started < Self.probeTimeout)
    }

    private mutating func countTransportLoss(_ entries: [SentPacketLog.Entry], at now: Instant) {
        transportLoss.total += entries.count
        transportLoss.lost += entries.filter { $0.arrival == nil }.count
        let since = transportLoss.since ?? now
        transportLoss.since = since
        guard transportLoss.total >= Self.minimumLossSample, now - since >= Self.lossWindow else { return }
        let ratio = Double(transportLoss.lost) / Double(transportLoss.total)
        transportLoss = (0, 0, now)
        lossBased.update(
            lossRatio: ratio, sending: sending.rate(at: now) * 8, applicationLimited: applicationLimit.isLimited,
            roundTrip: roundTrip, at: now)
        // With the queueing delay in view, low loss says nothing the delay
        // estimate does not: a back-off taken for an overflow is undone at
        // once instead of at 8 % a second, which would climb past the path.
        // No further than the delay estimate could itself grow from what is
        // delivered: sending far under it, it saw no queue and stood still,
        // and undone to it at once, 0.47 Mbit/s on a 0.6 Mbit/s link became 3.3.
        if ratio < LossBasedEstimator.lowLoss, let delivered = log.acknowledgedBitrate.map(asTarget) {
            lossBased.recover(to: min(delayEstimate.bitrate, AIMDRateControl.acknowledgedHeadroom * delivered))
        }
    }

    /// Without transport-wide feedback, loss is what a receiver report says
    /// (with the NACKs' count when a window of theirs closes with it, the
    /// worse of the two), or what the NACKs count over their window. Each
    /// report and each window is taken once.
    private mutating func updateLossFromReports(at now: Instant, reported: Double? = nil) {
        guard feedbackKind == .receiverReports else { return }
        let nacked = nackLoss.takeLossRatio(at: now, settle: roundTrip + Self.overrunDrain)
        guard reported != nil || nacked != nil else { return }
        _ = applicationLimit.update(estimate: Double(target(at: now).bitrate) * applicationShare, at: now)
        let before = lossBased.bitrate
        var loss = max(reported ?? 0, nacked?.ratio ?? 0)
        // A receiver that asks for keyframes again lost what it did not ask to have resent:
        // rtpbin stops NACKing once the round trip passes its latency (nothing resent could come
        // in time) and asks only for keyframes. Its silence then is no window without loss:
        // behind a 1.5 Mbit/s tbf with 200 ms of round trip, the estimate once grew from 2 to
        // 4 Mbit/s while the tbf dropped a fifth of the packets and rtpbin asked for a keyframe
        // twice a second.
        if loss < LossBasedEstimator.lowLoss, let asked = keyframeAskedAgain, now - asked < Self.keyframeAskedAgainHolds {
            loss = LossBasedEstimator.lowLoss
        }
        let sent = sending.rate(at: now) * 8
        // rtpbin asks for packets that are late behind a filling queue as for lost ones, and gives
        // up asking once its latency has passed: what its NACKs count lost read 33 % where a tbf
        // dropped under 1 %, and 2 % where it dropped about a third. How fast their waits grow says
        // how far over the path the sender is, whatever share of the packets they name.
        let carried = nacked?.queueGrowth.flatMap { $0 >= Self.fillingQueueGrowth ? sent / (1 + $0) : nil }
        // Waits that fall tell a queue that drains: the sender is under the path, and what the
        // NACKs name is late, not lost.
        let draining = (nacked?.queueGrowth ?? 0) <= -Self.fillingQueueGrowth
        if draining { loss = min(loss, LossBasedEstimator.lowLoss) }
        let toldBefore = nacked == nil ? nil : beforeUnconfirmedBackOff
        // A twentieth or more lost in two windows in a row is a bottleneck's tail drop, though no
        // NACK came late enough to show its queue: behind a tbf with 200 ms of latency on a
        // 3 Mbit/s link the queue holds at most 240 ms, and rtpbin's NACKs waited under
        // `NackLossMeter.standingQueue`. Such windows each took off only what they named (4.0 →
        // 3.89 → 3.45 Mbit/s) while the queue stood full for two seconds. Random loss reads that
        // much in one window of twenty, so two in a row are not it.
        let lostMuch = nacked != nil && !draining && loss >= LossBasedEstimator.randomLossReading
        let told = ((nacked?.behindAQueue ?? false) || carried != nil) && !draining
        // Until loss is first judged, the estimate is the start's guess: the cap. A twentieth lost
        // from it, by NACKs or a report, overran the path, though no second late NACK confirmed the
        // queue yet. Taken off as unconfirmed loss (4 → 2.25 Mbit/s into a 1.5 Mbit/s link, by
        // half of it; 4 → 3.2 held at what got through), it left the rate over the link for a
        // third back-off, and rtpbin's view stood still until 3.5 s, where with the first window
        // confirmed it was back by 2.5. A report on less than a NACK window of sending does not
        // make the cap tried: rtpbin's first comes within 0.25 s, before the queue overflows. One
        // that halved it did: the next window's loss is the halved rate's.
        let untried = !lossJudged && !draining && loss >= LossBasedEstimator.randomLossReading
        if untried || nacked != nil || firstPacketSent.map({ now - $0 >= NackLossMeter.window }) ?? false { lossJudged = true }
        let overrun = (told || lostMuch && lossPersists) && (nacked?.ratio ?? 0) >= (reported ?? 0) || untried
        let stands = (nacked?.behindAQueue ?? false) && nacked?.queueGrowth.map { abs($0) < Self.fillingQueueGrowth } ?? false
        if nacked != nil { (lossPersists, beforeUnconfirmedBackOff) = (lostMuch && !overrun, nil) }
        lossBased.update(
            lossRatio: loss, sending: sent, overrun: overrun, carried: overrun ? carried : nil, queueStands: stands,
            applicationLimited: applicationLimit.isLimited, roundTrip: roundTrip, at: now)
        guard lossBased.bitrate < before else { return }
        // Measured, the path's rate says where to land, and so does a queue that stands full; the
        // rule for an overrun told twice is for back-offs that only guess it.
        if overrun, carried == nil, !stands, let toldBefore {
            lossBased.landOneOverrunToldTwice(at: min(before, Self.overrunToldTwiceLandsAt * toldBefore))
        } else if !overrun {
            beforeUnconfirmedBackOff = before
        }
        backedOff(overrun: overrun, queueWait: nacked?.queueWait ?? .zero, at: now)
    }

    /// After a back-off on loss, whatever told of it: `queueWait`, the longest a packet told of
    /// from behind the queue waited there.
    private mutating func backedOff(overrun: Bool, queueWait: Duration, at now: Instant) {
        let again = lastOverrunBackOff.map { now - $0 < Self.overrunsCloseTogether } ?? false
        // Landed under what the path was measured to carry, the queue drains at a fifth of it,
        // a second or more for the wait rtpbin's late NACKs tell of; what is sent meanwhile meets
        // it. Still above (one back-off goes no lower than half), the next halving is not delayed.
        let drain = lossBased.landedUnderCarried ? Self.longestDrain
            : overrun && again ? min(queueWait * Self.drainPerQueueWait, Self.longestDrain) : .zero
        nackLoss.restart(judgedFrom: now + drain)
        lastLossBackOff = now
        if overrun { lastOverrunBackOff = now }
        overrunQueueWait = overrun && queueWait >= NackLossMeter.standingQueue ? queueWait : nil
        if lossBased.landedUnderCarried { queueDrainsUntil = now + drain }
    }
}
