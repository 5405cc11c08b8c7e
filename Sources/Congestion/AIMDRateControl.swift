import Media

/// Turns the delay detector's verdicts into a bitrate: additive increase
/// near the rate at which the path last filled up, multiplicative far from
/// it; on overuse, back to a little under what was really delivered; on
/// underuse, hold while the queue drains.
public struct AIMDRateControl: Sendable {
    /// On overuse, aim this far under the delivered rate so the queue that
    /// built up drains (libwebrtc's β).
    public static let decreaseFactor = 0.85
    /// Far from any known ceiling, grow this much a second: a 1.5 Mbit/s
    /// path is found from 300 kbit/s in about 20 s even without probes.
    static let multiplicativeIncreasePerSecond = 0.08
    /// Near the ceiling, at least this many bits per second each second.
    static let minimumAdditiveIncrease = 4_000.0
    /// Additive increase adds about one packet per response time, the time
    /// it takes for a change to show in feedback: a round trip plus this.
    static let responseTimeMargin: Duration = .milliseconds(100)
    static let assumedFrameRate = 30.0
    static let packetBits = 1200.0 * 8
    /// Growth stops this far above what is really delivered (given as the
    /// target that delivers it): an estimate must not climb on capacity
    /// nobody uses. A screen encoder undershoots on easy content; libwebrtc's
    /// 1.5 let the estimate drift a third past a path the sender never
    /// filled, and 1.25 over the encoder's 0.85 drifted 15 % past it.
    static let acknowledgedHeadroom = 1.1
    static let acknowledgedHeadroomFloor = 10_000.0
    /// One back-off per round trip, clamped: the feedback after a decrease
    /// still shows the queue built before it.
    static let decreaseIntervalRange: ClosedRange<Duration> = .milliseconds(10)...(.milliseconds(200))
    /// A growth step over a longer pause would leap.
    static let maxIncreaseInterval: Duration = .seconds(1)

    public private(set) var bitrate: Double
    private var increasing = true
    private var linkCapacity: LinkCapacityEstimate?
    private var lastUpdate: Instant?
    private var lastDecrease: Instant?

    /// The top of the band of what was delivered when the path filled up.
    public var capacityCeiling: Double? { linkCapacity?.upperBound }

    public init(bitrate: Double) {
        self.bitrate = bitrate
    }

    /// A probe measured what the path carries: take it as the estimate.
    public mutating func setBitrate(_ value: Double, at now: Instant) {
        bitrate = value
        lastUpdate = now
    }

    /// While the sender is application-limited the estimate does not grow:
    /// what is delivered is what was sent, which says nothing of the
    /// ceiling. Overuse backs off from what is delivered all the same: the
    /// queue grows, so the little being sent is already more than the path
    /// carries (Text and detail's 1.4 Mbit/s at 15 fps under a 4 Mbit/s
    /// estimate filled a 1.5 Mbit/s link's queue, and backing off by 0.85 of
    /// the estimate at a time took three seconds, with 6 % dropped).
    ///
    /// `acknowledged` is what was delivered lately, which growth stops a little above;
    /// `deliveredWhileBusy` the same over only the stretches in which the path was busy, which an
    /// overuse backs off under: what arrived while the sender paused says nothing of the path.
    /// Nil for either: too little arrived to say.
    public mutating func update(
        _ usage: BandwidthUsage, acknowledged: Double?, deliveredWhileBusy: Double?, roundTrip: Duration,
        applicationLimited: Bool = false, at now: Instant
    ) {
        defer { lastUpdate = now }
        switch usage {
        case .overusing:
            decrease(delivered: deliveredWhileBusy, measuresTheLink: !applicationLimited, roundTrip: roundTrip, at: now)
        case .underusing:
            increasing = false
        case .normal:
            if !increasing {
                increasing = true
                return
            }
            if applicationLimited { return }
            increase(acknowledged: acknowledged, roundTrip: roundTrip, at: now)
        }
    }

    /// `measuresTheLink`: what was delivered filled the path, so it is a sample of the link's capacity.
    private mutating func decrease(delivered: Double?, measuresTheLink: Bool, roundTrip: Duration, at now: Instant) {
        let interval = min(max(roundTrip, Self.decreaseIntervalRange.lowerBound), Self.decreaseIntervalRange.upperBound)
        if let lastDecrease, now - lastDecrease < interval { return }
        increasing = false
        lastDecrease = now
        guard let delivered else {
            bitrate *= Self.decreaseFactor
            return
        }
        var target = Self.decreaseFactor * delivered
        if target > bitrate, let linkCapacity { target = Self.decreaseFactor * linkCapacity.mean }
        bitrate = min(bitrate, target)
        guard measuresTheLink else { return }
        if let capacity = linkCapacity, delivered < capacity.lowerBound { linkCapacity = nil }
        if linkCapacity == nil { linkCapacity = LinkCapacityEstimate(delivered) } else { linkCapacity?.add(delivered) }
    }

    private mutating func increase(acknowledged: Double?, roundTrip: Duration, at now: Instant) {
        guard let lastUpdate else { return }
        let seconds = min(now - lastUpdate, Self.maxIncreaseInterval).inSeconds
        if let acknowledged, let capacity = linkCapacity, acknowledged > capacity.upperBound { linkCapacity = nil }
        var grown: Double
        if linkCapacity != nil {
            grown = bitrate + Self.additiveIncreasePerSecond(at: bitrate, roundTrip: roundTrip) * seconds
        } else {
            grown = bitrate * (1 + Self.multiplicativeIncreasePerSecond * seconds)
        }
        if let acknowledged {
            let limit = Self.acknowledgedHeadroom * acknowledged + Self.acknowledgedHeadroomFloor
            grown = min(grown, max(bitrate, limit))
        }
        bitrate = grown
    }

    /// About one average packet per response time at `bitrate`.
    static func additiveIncreasePerSecond(at bitrate: Double, roundTrip: Duration) -> Double {
        let frameBits = bitrate / Self.assumedFrameRate
        let packetsPerFrame = (frameBits / Self.packetBits).rounded(.up)
        let averagePacketBits = frameBits / max(packetsPerFrame, 1)
        let responseTime = (roundTrip + Self.responseTimeMargin).inSeconds
        return max(Self.minimumAdditiveIncrease, averagePacketBits / responseTime)
    }
}
