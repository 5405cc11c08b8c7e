import Media

/// Balanced's size from the bitrate, with hysteresis (docs/behaviour.md
/// §3.2): a dead band between the bits a pixel at which it steps down and
/// those at which it grows, and growth only once the larger size has been
/// affordable for seconds on end. A bandwidth estimate saws by 15 % as it
/// finds the path; without the band each dip would cost a size change and a
/// keyframe, and each peak another.
public struct BalancedSizer: Sendable {
    /// The sizes Balanced steps through, as fractions of the source's long side.
    public static let scales: [Double] = [1, 0.75, 2.0 / 3.0, 0.5, 1.0 / 3.0]
    /// Below this many bits a pixel a frame at the size in use, x264 smears
    /// screen text: step down.
    public static let stepDownBelow = 0.03
    /// A step down lands on the largest size that gets this: inside the band,
    /// so the next dip of the estimate does not step down again.
    public static let landAt = 0.035
    /// A larger size must get this (a dead band of two-thirds above the step down)…
    public static let growAt = 0.05
    /// …without a break for this long: a peak of the estimate is not room.
    public static let growHold: Duration = .seconds(5)
    /// The share of an estimate from loss alone that is room to grow into. With no queueing
    /// delay to tell it, such an estimate climbs past the path until the queue overflows: into
    /// rtpbin without transport-cc behind a 1.5 Mbit/s tbf it stood at 1.26–1.38 × the link before
    /// each fall, and Balanced grew from 960×540 to 1280×720 there in 6 rows of 11; the four
    /// longest gaps after 3 s (0.69–1.52 s) were in those rows, where that size's keyframe met
    /// the queue (docs/benchmarks.md).
    public static let lossAloneRoom = 0.8

    public private(set) var scale = 1.0
    /// For each of `scales`, since when it has had `growAt` without a break.
    private var roomSince = [Instant?](repeating: nil, count: BalancedSizer.scales.count)

    public init() {}

    /// The scale to encode at now. `bitsPerPixel(s)` is what each pixel of a
    /// frame at scale `s` gets. A bitrate that is not yet a measurement of
    /// the path (`settled` false: a probe is out) changes nothing; one the
    /// path has not been shown to carry (`tried` false) is no room to grow into, and of one that
    /// no queueing delay keeps (`fromLossAlone`), only `lossAloneRoom` is.
    public mutating func update(bitsPerPixel: (Double) -> Double, settled: Bool, tried: Bool = true, fromLossAlone: Bool = false,
                                at now: Instant) -> Double {
        guard settled else { return scale }
        if bitsPerPixel(scale) < Self.stepDownBelow {
            scale = Self.largest(bitsPerPixel, getting: Self.landAt, atMost: scale)
            roomSince = roomSince.map { _ in nil }
            return scale
        }
        let room = fromLossAlone ? Self.lossAloneRoom : 1
        for (index, candidate) in Self.scales.enumerated() {
            roomSince[index] = tried && candidate > scale && room * bitsPerPixel(candidate) >= Self.growAt ? roomSince[index] ?? now : nil
        }
        // A larger size keeps its count when Balanced grows to a smaller one on the way.
        if let grown = Self.scales.indices.first(where: { roomSince[$0].map { now - $0 >= Self.growHold } ?? false }) {
            scale = Self.scales[grown]
        }
        return scale
    }

    /// The largest scale up to `atMost` whose frames get `bits` a pixel; the smallest when none does.
    public static func largest(_ bitsPerPixel: (Double) -> Double, getting bits: Double, atMost: Double = 1) -> Double {
        scales.first { $0 <= atMost && bitsPerPixel($0) >= bits } ?? scales.last!
    }
}
