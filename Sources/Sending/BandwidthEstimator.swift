import Media

/// The target bitrate for one receiver: the least of the cap (from the
/// command line or the call client), the receiver's own estimate (REMB), and
/// a loss-based estimate from its receiver reports.
///
/// The loss rule is the one WebRTC's send-side estimate has used for years:
/// above 10 % loss the link is overrun, so back off in proportion; below 2 %
/// there is room, so probe upwards by 8 % a report; in between, hold.
public struct BandwidthEstimator: Sendable {
    public enum Limit: String, Sendable {
        case cap, receiverEstimate, loss
    }

    public static let minimumBitrate = 100_000
    static let highLoss = 0.10
    static let lowLoss = 0.02
    static let growthPerReport = 1.08
    /// A REMB older than this no longer limits: the receiver stopped sending them.
    static let estimateLifetime: Duration = .seconds(5)

    public private(set) var cap: Int
    private var lossBased: Double
    private var receiverEstimate: (bitrate: Int, at: Instant)?

    public init(cap: Int, start: Int? = nil) {
        self.cap = cap
        lossBased = Double(start ?? cap)
    }

    public mutating func setCap(_ bitrate: Int) {
        cap = max(BandwidthEstimator.minimumBitrate, bitrate)
    }

    public mutating func receiverEstimated(_ bitrate: Int, at now: Instant) {
        receiverEstimate = (bitrate, now)
    }

    /// `fractionLost` as carried in a receiver report block (0…1). Backing
    /// off from the lesser of the estimate and what is really being sent
    /// makes repeated reports of loss converge below the link's rate.
    public mutating func lossReported(_ fractionLost: Double, sending: Int) {
        if fractionLost > BandwidthEstimator.highLoss {
            lossBased = min(lossBased, Double(sending)) * (1 - 0.5 * fractionLost)
        } else if fractionLost < BandwidthEstimator.lowLoss {
            lossBased = min(Double(cap), lossBased * BandwidthEstimator.growthPerReport)
        }
        lossBased = max(Double(BandwidthEstimator.minimumBitrate), lossBased)
    }

    /// The bitrate to aim for now, and what set it.
    public func target(at now: Instant) -> (bitrate: Int, limit: Limit) {
        var best = (bitrate: cap, limit: Limit.cap)
        if let r = receiverEstimate, now - r.at < BandwidthEstimator.estimateLifetime, r.bitrate < best.bitrate {
            best = (max(BandwidthEstimator.minimumBitrate, r.bitrate), .receiverEstimate)
        }
        if Int(lossBased) < best.bitrate {
            best = (Int(lossBased), .loss)
        }
        return best
    }
}
