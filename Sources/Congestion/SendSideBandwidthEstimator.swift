import Media
import RTP

/// The target bitrate for one receiver's path, from whatever the receiver
/// sends back: with transport-wide feedback, queueing delay, loss and
/// probes; with only receiver reports and NACKs, loss; with nothing, the
/// cap. REMB and the call client's cap are ceilings on top.
///
/// Pure logic on the `Instant`s it is given: the sender tells it each packet
/// it sends (and stamps the transport-wide sequence number it hands back),
/// each piece of feedback, and asks for the target, the pacing rate and
/// whether a probe cluster is due.
public struct SendSideBandwidthEstimator: Sendable {
    /// What the receiver negotiated to send back.
    public enum FeedbackKind: Equatable, Sendable {
        case transportWide
        case receiverReports
        case none
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
    }

    public struct Target: Equatable, Sendable {
        public var bitrate: Int
        public var limit: Limit

        public init(bitrate: Int, limit: Limit) {
            self.bitrate = bitrate
            self.limit = limit
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
    /// A receiver report's fraction lost speaks for about its report interval.
    static let receiverReportLifetime: Duration = .seconds(2)
    /// Transport-wide loss is judged over at least this many packets and
    /// this long, so 2 % random loss does not read as 10 % in a small sample.
    static let minimumLossSample = 20
    static let lossWindow: Duration = .seconds(1)
    /// Until feedback says otherwise.
    static let assumedRoundTrip: Duration = .milliseconds(100)
    /// The estimate rising this much since the last probe (far from any
    /// known ceiling, so by multiplicative steps) means the path has room
    /// the rate control would take many seconds to find: probe it.
    static let probeAfterIncrease = 1.5
    /// A probe without a result after this is over.
    static let probeTimeout: Duration = .seconds(1)

    public let feedbackKind: FeedbackKind
    public private(set) var cap: Int
    private var log = SentPacketLog()
    private var delayBased: DelayBasedEstimator
    private var lossBased: LossBasedEstimator
    private var nackLoss = NackLossMeter()
    private var applicationLimit = ApplicationLimitDetector()
    private var probes = ProbeController()
    private var probeResults = ProbeResultEstimator()
    private var sending = RateMeter(window: .seconds(1))
    private var receiverEstimate: (bitrate: Int, at: Instant)?
    private var receiverReport: (fractionLost: Double, at: Instant)?
    private var roundTrip = SendSideBandwidthEstimator.assumedRoundTrip
    private var transportLoss = (lost: 0, total: 0, since: Instant?.none)
    private var lastProbe: (started: Instant, answered: Bool)?
    /// The lowest delay-based estimate since the last probe.
    private var lowSinceProbe: Double

    public init(cap: Int, feedbackKind: FeedbackKind, start: Int = SendSideBandwidthEstimator.startBitrate) {
        self.feedbackKind = feedbackKind
        self.cap = max(Self.minimumBitrate, cap)
        let first = Double(min(max(start, Self.minimumBitrate), self.cap))
        delayBased = DelayBasedEstimator(bitrate: first)
        lossBased = LossBasedEstimator(bitrate: first)
        lowSinceProbe = first
        if feedbackKind == .transportWide { probes.start(from: first, cap: Double(self.cap)) }
    }

    // MARK: What the sender does

    /// Records a packet as it leaves; returns the transport-wide sequence
    /// number to stamp in it.
    public mutating func onPacketSent(size: Int, at now: Instant, kind: SentPacketLog.Kind = .media) -> UInt16 {
        switch kind {
        case .media, .retransmission:
            countSent(size: size, at: now)
            if kind == .media { nackLoss.recordSent(at: now) }
        case .padding, .probe:
            break
        }
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
        delayBased.limit(to: ceiling(at: now), at: now)
        if raised, feedbackKind == .transportWide, delayBased.bitrate >= Double(target(at: now).bitrate) {
            probes.recheck(estimate: delayBased.bitrate, cap: Double(cap))
        }
    }

    /// A round-trip time measured elsewhere (receiver reports' LSR/DLSR).
    public mutating func onRoundTripTime(_ rtt: Duration) {
        roundTrip = rtt
    }

    /// The next probe cluster to send, if one is due: `packetCount` packets
    /// of `packetSize` bytes at `bitrate`, each recorded with kind
    /// `.probe(cluster:)`.
    public mutating func pendingProbe(at now: Instant) -> ProbeCluster? {
        guard feedbackKind == .transportWide, let cluster = probes.next() else { return nil }
        probeResults.expect(cluster, at: now)
        lastProbe = (now, false)
        lowSinceProbe = delayBased.bitrate
        return cluster
    }

    // MARK: What the receiver sends back

    public mutating func onTransportFeedback(_ feedback: TransportFeedback, at now: Instant) {
        let entries = log.match(feedback)
        guard let newest = entries.filter({ $0.arrival != nil }).map(\.sendTime).max() else {
            countTransportLoss(entries, at: now)
            return
        }
        // Includes the receiver's wait before it sends feedback: an upper bound, which is the safe side.
        roundTrip = now - newest
        for entry in entries {
            guard let (cluster, bitrate) = probeResults.add(entry) else { continue }
            lastProbe?.answered = true
            delayBased.probeMeasured(min(bitrate, ceiling(at: now)), at: now)
            lossBased.probeMeasured(min(bitrate, ceiling(at: now)))
            probes.resultMeasured(bitrate, of: cluster, cap: ceiling(at: now))
        }
        countTransportLoss(entries, at: now)
        delayBased.update(
            entries, acknowledged: log.acknowledgedBitrate, roundTrip: roundTrip,
            applicationLimited: applicationLimit.isLimited, at: now)
        delayBased.limit(to: ceiling(at: now), at: now)
        lowSinceProbe = min(lowSinceProbe, delayBased.bitrate)
        if delayBased.bitrate >= Self.probeAfterIncrease * lowSinceProbe {
            probes.recheck(estimate: delayBased.bitrate, cap: ceiling(at: now))
        }
        if applicationLimit.update(estimate: Double(target(at: now).bitrate), at: now) == .left {
            probes.recheck(estimate: delayBased.bitrate, cap: ceiling(at: now))
        }
    }

    /// `fractionLost` as a receiver report block carries it, 0…1.
    public mutating func onReceiverReport(fractionLost: Double, at now: Instant) {
        receiverReport = (fractionLost, now)
        updateLossFromReports(at: now)
    }

    /// The sequence numbers one NACK asks for.
    public mutating func onNack(sequenceNumbers: [UInt16], at now: Instant) {
        nackLoss.recordNack(sequenceNumbers, at: now)
        updateLossFromReports(at: now)
    }

    public mutating func onREMB(bitrate: Int, at now: Instant) {
        receiverEstimate = (bitrate, now)
    }

    // MARK: What the sender asks

    /// The bitrate to aim the encoder at now, and what set it.
    public func target(at now: Instant) -> Target {
        guard feedbackKind != .none else { return Target(bitrate: cap, limit: .noFeedback) }
        var best = Target(bitrate: cap, limit: .cap)
        if let estimate = validReceiverEstimate(at: now), estimate < best.bitrate {
            best = Target(bitrate: estimate, limit: .receiverEstimate)
        }
        if feedbackKind == .transportWide, Int(delayBased.bitrate) < best.bitrate {
            best = Target(bitrate: Int(delayBased.bitrate), limit: probing(at: now) ? .probing : .delay)
        }
        if Int(lossBased.bitrate) < best.bitrate {
            best = Target(bitrate: Int(lossBased.bitrate), limit: .loss)
        }
        best.bitrate = min(max(best.bitrate, Self.minimumBitrate), cap)
        return best
    }

    /// The rate to pace media at: well above the target, so a keyframe is
    /// spread out without holding frames back. Probe clusters go at their own rate.
    public func pacingRate(at now: Instant) -> Double {
        Double(target(at: now).bitrate) * Pacer.defaultRateMultiplier
    }

    public var isApplicationLimited: Bool { applicationLimit.isLimited }

    /// Bits per second the receiver acknowledged lately (transport-wide feedback only).
    public var acknowledgedBitrate: Double? { log.acknowledgedBitrate }

    // MARK: Inside

    private func ceiling(at now: Instant) -> Double {
        Double(min(cap, validReceiverEstimate(at: now) ?? cap))
    }

    private func validReceiverEstimate(at now: Instant) -> Int? {
        guard let estimate = receiverEstimate, now - estimate.at < Self.receiverEstimateLifetime else { return nil }
        return max(Self.minimumBitrate, estimate.bitrate)
    }

    private func probing(at now: Instant) -> Bool {
        guard let lastProbe else { return false }
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
            lossRatio: ratio, sending: sending.rate(at: now) * 8, applicationLimited: applicationLimit.isLimited, at: now)
    }

    /// Without transport-wide feedback, loss is the worse of what the last
    /// receiver report said and what the NACKs count.
    private mutating func updateLossFromReports(at now: Instant) {
        guard feedbackKind == .receiverReports else { return }
        let reported = receiverReport.flatMap { now - $0.at < Self.receiverReportLifetime ? $0.fractionLost : nil }
        let nacked = nackLoss.takeLossRatio(at: now)
        guard reported != nil || nacked != nil else { return }
        _ = applicationLimit.update(estimate: Double(target(at: now).bitrate), at: now)
        lossBased.update(
            lossRatio: max(reported ?? 0, nacked ?? 0), sending: sending.rate(at: now) * 8,
            applicationLimited: applicationLimit.isLimited, at: now)
    }
}
