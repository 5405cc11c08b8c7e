import Media

/// A bottleneck on simulated time, the shape of a `tc tbf` uplink: packets
/// queue behind a link of a set rate (after an idle spell its token bucket
/// lets a burst through at once), the queue drops at its tail when full,
/// and each packet then takes the one-way propagation delay, some seeded
/// jitter (never reordering) and a seeded chance of random loss.
///
/// It never reads a clock: each packet comes with its send time, and the
/// answer is when it arrives, or nil when it is dropped.
public struct SimulatedLink: Sendable {
    /// How much the queue holds before it drops.
    public enum QueueLimit: Sendable {
        case bytes(Int)
        /// As much as drains in this time at the rate of the moment.
        case delay(Duration)
    }

    /// From `at` on, the link carries `bitsPerSecond`.
    public struct RateStep: Sendable {
        public var at: Instant
        public var bitsPerSecond: Double

        public init(at: Instant, bitsPerSecond: Double) {
            self.at = at
            self.bitsPerSecond = bitsPerSecond
        }
    }

    /// From `at` on, this share of packets is lost at random.
    public struct LossStep: Sendable {
        public var at: Instant
        public var lossRate: Double

        public init(at: Instant, lossRate: Double) {
            self.at = at
            self.lossRate = lossRate
        }
    }

    public let queueLimit: QueueLimit
    public let propagationDelay: Duration
    public let jitter: Duration
    /// Bytes a token bucket lets through at once after an idle spell (`tc tbf`'s burst).
    public let burst: Int
    private var schedule: [RateStep]
    private var lossSchedule: [LossStep]
    private var random: SeededRandom
    /// When the link would finish serializing what it has accepted, with no burst.
    private var busyUntil = Instant(nanoseconds: Int64.min / 2)
    private var lastArrival = Instant(nanoseconds: Int64.min / 2)
    public private(set) var droppedAtQueue = 0
    public private(set) var lostAtRandom = 0
    public private(set) var delivered = 0

    public init(
        bitsPerSecond: Double, queueLimit: QueueLimit, propagationDelay: Duration, jitter: Duration = .zero,
        lossRate: Double = 0, seed: UInt64 = 1, steps: [RateStep] = [], lossSteps: [LossStep] = [], burst: Int = 0
    ) {
        self.queueLimit = queueLimit
        self.burst = burst
        self.propagationDelay = propagationDelay
        self.jitter = jitter
        schedule = [RateStep(at: Instant(nanoseconds: Int64.min / 2), bitsPerSecond: bitsPerSecond)]
            + steps.sorted { $0.at < $1.at }
        lossSchedule = [LossStep(at: Instant(nanoseconds: Int64.min / 2), lossRate: lossRate)]
            + lossSteps.sorted { $0.at < $1.at }
        random = SeededRandom(seed: seed)
    }

    public func rate(at time: Instant) -> Double {
        schedule.last { $0.at <= time }?.bitsPerSecond ?? schedule[0].bitsPerSecond
    }

    public func lossRate(at time: Instant) -> Double {
        lossSchedule.last { $0.at <= time }?.lossRate ?? lossSchedule[0].lossRate
    }

    /// How long a packet sent at `time` waits before the link starts on it.
    public func queueDelay(at time: Instant) -> Duration {
        let ready = busyUntil - burstTime(at: time)
        return ready > time ? ready - time : .zero
    }

    /// How far ahead of the rate the bucket's burst lets the link run.
    private func burstTime(at time: Instant) -> Duration {
        .nanoseconds(Int64(Double(burst * 8) / rate(at: time) * 1e9))
    }

    /// Sends a packet of `size` bytes at `time`; packets must come in send order.
    public mutating func send(size: Int, at time: Instant) -> Instant? {
        let rate = rate(at: time)
        let waiting = queueDelay(at: time)
        let queuedBytes = waiting.inSeconds * rate / 8
        let full: Bool
        switch queueLimit {
        case .bytes(let limit): full = queuedBytes + Double(size) > Double(limit)
        case .delay(let limit): full = waiting > limit
        }
        if full {
            droppedAtQueue += 1
            return nil
        }
        busyUntil = max(busyUntil, time) + .nanoseconds(Int64(Double(size * 8) / rate * 1e9))
        let lossRate = lossRate(at: time)
        if lossRate > 0, Double.random(in: 0..<1, using: &random) < lossRate {
            lostAtRandom += 1
            return nil
        }
        var arrival = max(time, busyUntil - burstTime(at: time)) + propagationDelay
        if jitter > .zero {
            arrival = arrival + .nanoseconds(Int64.random(in: 0...jitter.nanoseconds, using: &random))
        }
        arrival = max(arrival, lastArrival)
        lastArrival = arrival
        delivered += 1
        return arrival
    }
}
