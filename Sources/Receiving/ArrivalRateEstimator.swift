import Media

/// The receiver's own estimate of what the link carries, sent back as REMB.
///
/// Each frame's one-way delay (arrival minus RTP time) is compared with the
/// lowest seen lately: when it climbs well above, a queue is building on the
/// path, so the estimate drops below what arrives; otherwise it offers room
/// above what arrives, so the sender can probe upwards.
struct ArrivalRateEstimator {
    /// Delay above the recent minimum that means a queue is building.
    static let queueingThreshold: Duration = .milliseconds(60)
    static let backOff = 0.85
    static let headroom = 1.5
    static let window: Duration = .seconds(2)

    private var received = RateMeter(window: .seconds(1))
    private var delays: [(at: Instant, delay: Int64)] = []
    private(set) var overused = false

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
        overused = delay - lowest > ArrivalRateEstimator.queueingThreshold.nanoseconds
    }

    mutating func estimate(at now: Instant) -> Int {
        let incoming = received.rate(at: now)
        let factor = overused ? ArrivalRateEstimator.backOff : ArrivalRateEstimator.headroom
        return max(100_000, Int(incoming * factor))
    }

    mutating func incomingBitrate(at now: Instant) -> Int {
        Int(received.rate(at: now))
    }
}
