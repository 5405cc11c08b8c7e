/// What the path delivered each time the delay detector found it full: a
/// smoothed mean and spread, so the rate control knows when it is near the
/// ceiling (grow gently) and when it has left it far behind (grow fast).
struct LinkCapacityEstimate: Sendable {
    /// Each new measurement moves the mean by this share (libwebrtc's value).
    static let smoothing = 0.05
    /// The relative variance stays within this, so one odd sample neither
    /// pins the band shut nor throws it wide open.
    static let varianceRange = 0.4...2.5
    /// The band around the mean counted as "near": three deviations.
    static let bandDeviations = 3.0

    private(set) var mean: Double
    private var variance = 0.4

    init(_ first: Double) {
        mean = first
    }

    /// The variance is kept relative to the mean in kbit/s, the units its
    /// range was tuned in.
    mutating func add(_ measured: Double) {
        mean = (1 - Self.smoothing) * mean + Self.smoothing * measured
        let error = (mean - measured) / 1000
        variance = (1 - Self.smoothing) * variance + Self.smoothing * error * error / max(mean / 1000, 1)
        variance = min(max(variance, Self.varianceRange.lowerBound), Self.varianceRange.upperBound)
    }

    private var deviation: Double { (variance * mean / 1000).squareRoot() * 1000 }
    var upperBound: Double { mean + Self.bandDeviations * deviation }
    var lowerBound: Double { mean - Self.bandDeviations * deviation }
}
