import Media

/// The estimate from queueing delay alone: acknowledged packets grouped by
/// send burst, the trend of their delay, the detector's verdict, and the
/// rate control acting on it.
public struct DelayBasedEstimator: Sendable {
    private var grouping = InterArrivalGrouping()
    private var trendline = TrendlineFilter()
    private var detector = OveruseDetector()
    private var queue = StandingQueueMeter()
    private var rateControl: AIMDRateControl
    public private(set) var usage = BandwidthUsage.normal
    private var probeSheltered: Instant?

    public init(bitrate: Double) {
        rateControl = AIMDRateControl(bitrate: bitrate)
    }

    public var bitrate: Double { rateControl.bitrate }

    /// A queue on the path has stood past `standingQueueLimit` through the last half second.
    public var queueStands: Bool { queue.standing.map { $0 > Self.standingQueueLimit } ?? false }

    /// After a probe leaves, the queue it built on purpose reaches the media
    /// behind it: overuse seen this long after is the probe's, and its own
    /// result says what the path carries. A round trip and the time the
    /// detector takes to see a trend.
    static let probeShelter: Duration = .milliseconds(500)
    /// A queue that has stood this long holds growth, whatever the trend: the estimate, growing a
    /// packet per response time, had filled a 1.5 Mbit/s tbf's queue towards its 200 ms before the
    /// trend crossed its threshold, and rtpbin, which waits 200 ms, gave up on frames that waited
    /// there and asked for keyframes (docs/benchmarks.md, *A standing queue holds growth*).
    static let standingQueueLimit: Duration = .milliseconds(60)
    /// A queue standing this deep is overuse whatever the trend: past what a receiver that plays
    /// out at a fixed latency waits for (rtpbin, 200 ms) once the path's own delay is added.
    static let deepQueue: Duration = .milliseconds(150)

    /// Takes one feedback's packets, in sequence order. Overuse anywhere in
    /// the feedback counts, even if the last group looked calm. Probe
    /// packets are left out: they leave faster than the path on purpose, and
    /// their own measurement (`ProbeResultEstimator`) says what they found.
    /// `acknowledged` and `deliveredWhileBusy` as for `AIMDRateControl.update`. `queueDraining`: the
    /// sender put less on the path lately than the path delivered.
    public mutating func update(
        _ entries: [SentPacketLog.Entry], acknowledged: Double?, deliveredWhileBusy: Double?,
        queueDraining: Bool = false, roundTrip: Duration, applicationLimited: Bool, at now: Instant
    ) {
        var sawOveruse = false
        var sawDelta = false
        for entry in entries {
            if case .probe = entry.kind { continue }
            guard let arrival = entry.arrival else { continue }
            queue.add(sendTime: entry.sendTime, arrival: arrival)
            guard let delta = grouping.add(sendTime: entry.sendTime, arrival: arrival) else { continue }
            sawDelta = true
            let trend = trendline.update(delta)
            let verdict = detector.detect(trend: trend, sendDelta: delta.sendDelta, deltaCount: trendline.deltaCount, at: now)
            if verdict == .overusing { sawOveruse = true }
        }
        guard sawDelta else { return }
        usage = sawOveruse ? .overusing : detector.state
        // Less going in than coming out: the queue shrinks, whatever the trend of the groups before
        // it says, and what is delivered then is what was sent, not the path. After a step from 3 to
        // 0.6 Mbit/s, a back-off 0.8 s on took 0.35 Mbit/s delivered while the sender had paused for
        // a new size's keyframe, and the target stood at half the link for 5–7 s.
        if usage == .overusing, queueDraining { usage = .underusing }
        // Unless the queue is deep: one that stood past `deepQueue` through the last half second
        // kept the bottleneck busy all that while, so what arrived is what the path carries,
        // however little was sent. After a step from 3 to 0.6 Mbit/s new frames waited for it
        // (docs/behaviour.md §7.5), so less was sent than delivered, and the estimate stood at the
        // first back-off's 1.7 Mbit/s for 1.7 s: the keyframe made when the queue had drained
        // filled it again.
        if let standing = queue.standing, standing > Self.deepQueue { usage = .overusing }
        // Held as while a queue drains: no growth, and no back-off that only the trend would call for.
        if usage == .normal, let standing = queue.standing, standing > Self.standingQueueLimit { usage = .underusing }
        let before = rateControl.bitrate
        rateControl.update(
            usage, acknowledged: acknowledged, deliveredWhileBusy: deliveredWhileBusy, roundTrip: roundTrip,
            applicationLimited: applicationLimited, at: now)
        if let sheltered = probeSheltered, now - sheltered < Self.probeShelter + roundTrip, rateControl.bitrate < before {
            rateControl.setBitrate(before, at: now)
        }
    }

    /// A probe cluster leaves now.
    public mutating func probeStarted(at now: Instant) {
        probeSheltered = now
    }

    /// The most the path was last found to carry when it filled up (the top
    /// of the band of what was delivered at overuse), until the sender
    /// delivers more than that; nil while unknown.
    public var capacityCeiling: Double? { rateControl.capacityCeiling }

    /// A probe found more room than the estimate says. A lower result does
    /// not lower it: a receiver's arrival times bunch when it is busy, which
    /// reads as a slow path; real queueing shows in the delay trend.
    public mutating func probeMeasured(_ bitrate: Double, at now: Instant) {
        if bitrate > rateControl.bitrate { rateControl.setBitrate(bitrate, at: now) }
    }

    /// The estimate may not stand above a ceiling set elsewhere (cap, REMB,
    /// loss), or it would leap when that ceiling lifts.
    public mutating func limit(to ceiling: Double, at now: Instant) {
        if rateControl.bitrate > ceiling { rateControl.setBitrate(ceiling, at: now) }
    }
}
