import Media

/// The receiver's own estimate of what the link carries, sent back as REMB.
///
/// Each frame's one-way delay (arrival minus RTP time) is compared with the
/// lowest seen lately: when every frame of the last half second arrived well
/// above it, a queue is building on the path, so the estimate drops below
/// what arrives. (One late frame is not a queue: a keyframe's packets are
/// paced out over a few frame periods and drag the next frames with them.) Otherwise it grows by a
/// few percent a report: a still screen sends little, and that says nothing
/// about what the link could carry.
struct ArrivalRateEstimator {
    /// Delay above the recent minimum that means a queue is building.
    static let queueingThreshold: Duration = .milliseconds(80)
    static let sustained: Duration = .milliseconds(500)
    static let backOff = 0.85
    static let growthPerReport = 1.08
    /// Where the estimate starts and the most it offers: more than any screen share needs.
    static let ceiling = 50_000_000.0
    static let floor = 100_000.0
    static let window: Duration = .seconds(2)

    private var received = RateMeter(window: .seconds(1))
    private var delays: [(at: Instant, delay: Int64)] = []
    private(set) var overused = false
    private var current = ArrivalRateEstimator.ceiling

    mutating func packetArrived(bytes: Int, at now: Instant) {
        received.record(bytes * 8, at: now)
    }

    mutating func frameArrived(rtpTimestamp: UInt32, at now: Instant) {
        // Unwrapping is not needed: only differences within a 2 s window are compared.
        let mediaNanos = Int64(rtpTimestamp) * 1_000_000_000 / 90_000
        let delay = now.nanoseconds - mediaNanos
        delays.append((now, delay))
        delays.removeAll { now - $0.at > ArrivalRateEstimator.window || abs($0.delay - delay) > 10_000_000_000 }
        let lowest = delays.map(\.delay).min() ?? delay
        let recent = delays.filter { now - $0.at <= ArrivalRateEstimator.sustained }.map(\.delay).min() ?? delay
        let spansWindow = delays.first.map { now - $0.at >= ArrivalRateEstimator.sustained } ?? false
        overused = spansWindow && recent - lowest > ArrivalRateEstimator.queueingThreshold.nanoseconds
    }

    /// The estimate for this report; call once a report.
    mutating func estimate(at now: Instant) -> Int {
        if overused {
            current = max(ArrivalRateEstimator.floor, received.rate(at: now) * ArrivalRateEstimator.backOff)
        } else {
            current = min(ArrivalRateEstimator.ceiling, current * ArrivalRateEstimator.growthPerReport)
        }
        return Int(current)
    }

    mutating func incomingBitrate(at now: Instant) -> Int {
        Int(received.rate(at: now))
    }
}
