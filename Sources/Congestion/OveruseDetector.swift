import Media

/// What the delay trend says about the path.
public enum BandwidthUsage: Equatable, Sendable {
    case normal
    /// The queue is filling: sending faster than the path carries.
    case overusing
    /// The queue is draining.
    case underusing
}

/// Compares the delay trend with a threshold that adapts to the path, so
/// jitter on a noisy link does not read as congestion and a clean link
/// still shows a queue early.
public struct OveruseDetector: Sendable {
    /// Where the threshold starts, in the trend's units (libwebrtc's value).
    static let initialThreshold = 12.5
    /// The threshold rises slowly towards trends above it and falls faster
    /// towards trends below, so it tracks the noise without chasing real queues.
    static let thresholdUp = 0.0087
    static let thresholdDown = 0.039
    static let thresholdRange = 6.0...600.0
    /// A trend this far past the threshold is a real change, not noise to adapt to.
    static let maxAdaptationStep = 15.0
    /// Adaptation over a gap longer than this would leap.
    static let maxAdaptationInterval = 100.0
    /// The trend must stay over the threshold this long before it counts:
    /// one delayed group is not congestion.
    static let overuseTime: Duration = .milliseconds(10)

    public private(set) var threshold = OveruseDetector.initialThreshold
    public private(set) var state = BandwidthUsage.normal
    private var overusingFor: Duration?
    private var overuseCount = 0
    private var previousTrend = 0.0
    private var lastUpdate: Instant?

    public init() {}

    /// Takes the modified trend after a group delta that spanned `sendDelta`.
    public mutating func detect(trend: Double, sendDelta: Duration, deltaCount: Int, at now: Instant) -> BandwidthUsage {
        defer {
            previousTrend = trend
            adapt(trend: trend, at: now)
        }
        guard deltaCount >= 2 else { return state }
        if trend > threshold {
            overusingFor = overusingFor.map { $0 + sendDelta } ?? sendDelta / 2
            overuseCount += 1
            if let time = overusingFor, time > Self.overuseTime, overuseCount > 1, trend >= previousTrend {
                overusingFor = .zero
                overuseCount = 0
                state = .overusing
            }
        } else if trend < -threshold {
            overusingFor = nil
            overuseCount = 0
            state = .underusing
        } else {
            overusingFor = nil
            overuseCount = 0
            state = .normal
        }
        return state
    }

    private mutating func adapt(trend: Double, at now: Instant) {
        defer { lastUpdate = now }
        guard let lastUpdate else { return }
        let magnitude = abs(trend)
        if magnitude > threshold + Self.maxAdaptationStep { return }
        let gain = magnitude < threshold ? Self.thresholdDown : Self.thresholdUp
        let interval = min((now - lastUpdate).inMilliseconds, Self.maxAdaptationInterval)
        threshold += gain * (magnitude - threshold) * interval
        threshold = min(max(threshold, Self.thresholdRange.lowerBound), Self.thresholdRange.upperBound)
    }
}
