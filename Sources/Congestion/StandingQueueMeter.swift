import Media

/// How long packets wait in a queue that does not drain: the one-way delay above the least seen
/// over the last 10 s (the path's own), at its lowest over the last half second (so a keyframe's
/// burst, which drains within a few frames, is no standing queue).
///
/// The delay trend sees a queue while it grows fast enough, not one that grows a packet per
/// response time or stands still; a receiver that plays out at a fixed latency (rtpbin waits
/// 200 ms) gives up on what waits there too long, and asks for a keyframe.
struct StandingQueueMeter: Sendable {
    private var base = WindowedMinimum(bucket: .seconds(1), buckets: 10)
    private var recent = WindowedMinimum(bucket: .milliseconds(50), buckets: 10)

    /// A packet sent at `sendTime` arrived at `arrival` on the receiver's clock (the two clocks'
    /// offset cancels out against the least).
    mutating func add(sendTime: Instant, arrival: Duration) {
        let oneWay = arrival - (sendTime - .zero)
        base.add(oneWay, at: arrival)
        recent.add(oneWay, at: arrival)
    }

    /// The wait that stood through the last half second of arrivals; nil while fewer than eight
    /// of its ten 50 ms buckets saw an arrival (the start, a pause, a burst's delay).
    var standing: Duration? {
        guard let least = recent.least(coveringAtLeast: 8), let path = base.least(coveringAtLeast: 1) else { return nil }
        return least - path
    }
}

/// The least of values over the last few buckets of time, in fixed memory.
struct WindowedMinimum: Sendable {
    let bucket: Duration
    private var slots: [(index: Int64, least: Duration)?]

    init(bucket: Duration, buckets: Int) {
        self.bucket = bucket
        slots = Array(repeating: nil, count: buckets)
    }

    mutating func add(_ value: Duration, at time: Duration) {
        // A receiver's clock may say anything: a time before its zero, or too far to count in buckets.
        let position = (time / bucket).rounded(.down)
        guard position.magnitude < 1e15 else { return }
        let index = Int64(position)
        let count = Int64(slots.count)
        let slot = Int((index % count + count) % count)
        if let current = slots[slot], current.index == index {
            slots[slot] = (index, min(current.least, value))
        } else if slots[slot].map({ $0.index < index }) ?? true {
            slots[slot] = (index, value)
        }
    }

    /// The least over the buckets of the last window, if at least `count` of them saw a value.
    func least(coveringAtLeast count: Int) -> Duration? {
        guard let newest = slots.compactMap({ $0?.index }).max() else { return nil }
        let live = slots.compactMap { $0 }.filter { newest - $0.index < Int64(slots.count) }
        guard live.count >= count else { return nil }
        return live.map(\.least).min()
    }
}
