import Media

/// Notices a receiver that has vanished (docs/behaviour.md §8.5): one that sent RTCP and
/// then fell silent for `timeout`. A receiver that never sends RTCP (a plain
/// GStreamer pipeline) is never timed out: silence is all it ever says.
struct ReceiverLiveness {
    /// Receivers send RTCP at least every few seconds (RFC 3550 §6.2; ours
    /// and browsers about once a second), so this is many missed reports.
    static let timeout: Duration = .seconds(15)

    private var seen: [String: (count: Int, at: Instant)] = [:]

    /// Feeds the receiver's feedback count; true once it has been silent too long.
    mutating func isLost(_ id: String, feedback: Int, now: Instant) -> Bool {
        guard let last = seen[id] else {
            seen[id] = (feedback, now)
            return false
        }
        if feedback != last.count {
            seen[id] = (feedback, now)
            return false
        }
        return feedback > 0 && now - last.at >= ReceiverLiveness.timeout
    }

    mutating func forget(_ id: String) {
        seen.removeValue(forKey: id)
    }
}
