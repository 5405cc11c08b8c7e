/// Fits a line to the accumulated one-way delay over the last groups: its
/// slope says whether the path's queue is filling (positive), steady or
/// draining, with the noise of single groups smoothed away.
public struct TrendlineFilter: Sendable {
    /// About a second of groups at 30 frames per second: long enough to
    /// smooth jitter, short enough to see a queue start within a few frames.
    public static let windowSize = 20
    /// Exponential smoothing of the accumulated delay (libwebrtc's value).
    static let smoothing = 0.9
    /// Scales the slope into the units the overuse threshold is tuned for.
    static let thresholdGain = 4.0
    /// The trend's weight grows with the deltas seen, up to this many.
    static let maxDeltaWeight = 60

    private var accumulatedDelay = 0.0
    private var smoothedDelay = 0.0
    private var firstArrival: Double?
    private var window: [(x: Double, y: Double)] = []
    public private(set) var deltaCount = 0
    /// The last slope, in ms of delay per ms; 0 until the window fills.
    public private(set) var slope = 0.0

    public init() {}

    /// Takes one group delta and returns the modified trend the overuse
    /// detector compares with its threshold.
    public mutating func update(_ delta: InterArrivalGrouping.Delta) -> Double {
        let arrival = delta.arrival.inMilliseconds
        if firstArrival == nil { firstArrival = arrival }
        deltaCount += 1
        accumulatedDelay += delta.delayVariation.inMilliseconds
        smoothedDelay = Self.smoothing * smoothedDelay + (1 - Self.smoothing) * accumulatedDelay
        window.append((arrival - (firstArrival ?? arrival), smoothedDelay))
        if window.count > Self.windowSize { window.removeFirst() }
        if window.count == Self.windowSize, let fitted = Self.leastSquaresSlope(window) { slope = fitted }
        return modifiedTrend
    }

    public var modifiedTrend: Double {
        Double(min(deltaCount, Self.maxDeltaWeight)) * slope * Self.thresholdGain
    }

    static func leastSquaresSlope(_ points: [(x: Double, y: Double)]) -> Double? {
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n
        let meanY = points.reduce(0) { $0 + $1.y } / n
        var numerator = 0.0
        var denominator = 0.0
        for point in points {
            numerator += (point.x - meanX) * (point.y - meanY)
            denominator += (point.x - meanX) * (point.x - meanX)
        }
        return denominator == 0 ? nil : numerator / denominator
    }
}
