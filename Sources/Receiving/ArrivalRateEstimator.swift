import Media
import RTP
import SRTP
import Transport

/// The receiver's own estimate of what the link carries, sent back as REMB.
///
/// For each frame, how much later its last packet arrived than the one
/// before, beyond how much later it was sent (abs-send-time, or the capture
/// time from the RTP timestamp when the sender does not stamp it), is added
/// up: the sum is the queueing delay the path has built. A sum that keeps rising over the last second
/// means a queue is filling at a bottleneck, so the estimate drops below
/// what arrives. Otherwise it grows by a few percent a report: a still
/// screen sends little, and that says nothing about what the link could
/// carry. A queue that is already full and dropping grows no more: heavy
/// loss is taken the same way, since what arrives then is what the link carries.
struct ArrivalRateEstimator {
    /// Delay growing faster than 30 ms a second is a queue building: jitter
    /// from a busy encoder comes and goes, a bottleneck's queue only grows.
    static let overuseSlope = 0.03
    static let trendWindow: Duration = .seconds(1)
    static let minimumSamples = 8
    static let backOff = 0.85
    /// Loss above this in a report's interval means the bottleneck is dropping.
    static let heavyLoss = 0.10
    static let growthPerReport = 1.08
    /// Where the estimate starts and the most it offers: more than any screen share needs.
    static let ceiling = 50_000_000.0
    static let floor = 100_000.0

    private var received = RateMeter(window: .seconds(1))
    private var previous: (arrival: Instant, media: Int64, sent: UInt32?)?
    private var accumulated = 0.0
    private var samples: [(at: Instant, delay: Double)] = []
    private(set) var overused = false
    private var current = ArrivalRateEstimator.ceiling

    private var firstArrival: Instant?

    mutating func packetArrived(bytes: Int, at now: Instant) {
        if firstArrival == nil { firstArrival = now }
        received.record(bytes * 8, at: now)
    }

    mutating func frameArrived(rtpTimestamp: UInt32, sendTime: UInt32? = nil, at now: Instant) {
        let media = Int64(rtpTimestamp)
        if let p = previous {
            let sentStep: Double
            if let sendTime, let before = p.sent {
                sentStep = AbsoluteSendTime.milliseconds(from: before, to: sendTime)
            } else {
                sentStep = Double(Int32(bitPattern: UInt32(truncatingIfNeeded: media &- p.media))) / 90
            }
            accumulated += (now - p.arrival).inMilliseconds - sentStep
        }
        previous = (now, media, sendTime)
        samples.append((now, accumulated))
        samples.removeAll { now - $0.at > ArrivalRateEstimator.trendWindow }
        overused = samples.count >= ArrivalRateEstimator.minimumSamples && slope() > ArrivalRateEstimator.overuseSlope
    }

    /// Least-squares slope of the accumulated delay over arrival time (ms per ms).
    private func slope() -> Double {
        guard let first = samples.first else { return 0 }
        let xs = samples.map { ($0.at - first.at).inMilliseconds }
        let ys = samples.map(\.delay)
        let n = Double(samples.count)
        let mx = xs.reduce(0, +) / n
        let my = ys.reduce(0, +) / n
        var num = 0.0
        var den = 0.0
        for (x, y) in zip(xs, ys) {
            num += (x - mx) * (y - my)
            den += (x - mx) * (x - mx)
        }
        return den > 0 ? num / den : 0
    }

    /// The estimate for this report, given the fraction of packets lost since
    /// the last; call once a report.
    mutating func estimate(at now: Instant, loss: Double) -> Int {
        // What arrived is known only once a whole window of it has: backing
        // off from a part-filled first window would start the share far too low.
        let windowFilled = firstArrival.map { now - $0 >= received.window } ?? false
        if windowFilled && (overused || loss > ArrivalRateEstimator.heavyLoss) {
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
