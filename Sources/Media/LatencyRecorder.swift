/// Glass-to-packet latency: from a frame's capture to its last packet on the
/// wire. Frames are matched by RTP timestamp; the last few hundred samples
/// give the percentiles.
public struct LatencyRecorder: Sendable {
    static let pendingCapacity = 64
    static let sampleCapacity = 300

    private var pending: [(timestamp: UInt32, captured: Instant)] = []
    private var samples: [Duration] = []
    private var next = 0

    public init() {
        pending.reserveCapacity(LatencyRecorder.pendingCapacity)
        samples.reserveCapacity(LatencyRecorder.sampleCapacity)
    }

    /// A frame goes to the encoder; its packets may start leaving before the encode call returns.
    public mutating func frameStarted(timestamp: UInt32, captured: Instant) {
        if pending.count == LatencyRecorder.pendingCapacity { pending.removeFirst() }
        pending.append((timestamp, captured))
    }

    public mutating func lastPacketSent(timestamp: UInt32, at now: Instant) {
        guard let i = pending.firstIndex(where: { $0.timestamp == timestamp }) else { return }
        let latency = now - pending[i].captured
        pending.remove(at: i)
        if samples.count < LatencyRecorder.sampleCapacity {
            samples.append(latency)
        } else {
            samples[next] = latency
            next = (next + 1) % LatencyRecorder.sampleCapacity
        }
    }

    /// The latency below which `fraction` of the recent frames fell.
    public func percentile(_ fraction: Double) -> Duration? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}
