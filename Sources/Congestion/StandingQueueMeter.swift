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
