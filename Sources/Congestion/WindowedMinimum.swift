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
