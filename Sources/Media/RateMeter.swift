/// Counts events and tells how many a second happened over the last window.
public struct RateMeter: Sendable {
    public let window: Duration
    private var times: [Instant] = []
    private var amounts: [Int] = []
    public private(set) var total = 0

    public init(window: Duration = .seconds(1)) {
        self.window = window
        times.reserveCapacity(64)
        amounts.reserveCapacity(64)
    }

    public mutating func record(_ amount: Int = 1, at now: Instant) {
        times.append(now)
        amounts.append(amount)
        total += amount
        trim(now)
    }

    private mutating func trim(_ now: Instant) {
        var drop = 0
        while drop < times.count, now - times[drop] > window { drop += 1 }
        if drop > 0 {
            times.removeFirst(drop)
            amounts.removeFirst(drop)
        }
    }

    /// Amount per second over the window ending at `now`.
    public mutating func rate(at now: Instant) -> Double {
        trim(now)
        return Double(amounts.reduce(0, +)) / window.inSeconds
    }
}
