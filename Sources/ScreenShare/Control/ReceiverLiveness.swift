import Media

/// Watches each receiver's RTCP (docs/behaviour.md §10.1, §8.5): a receiver
/// whose RTCP has stopped for `reconnectingAfter` is being reconnected to, and
/// is said to be once the gap has lasted that long, never for a brief one; it is
/// back `clearedAfter` its RTCP resumes, if it kept coming; silent for `timeout`, it is gone. A
/// receiver that never sends RTCP (a plain GStreamer pipeline) is never any of
/// these: silence is all it ever says.
///
/// Pure: fed the receiver's feedback count and the time, four times a second.
struct ReceiverLiveness {
    /// Receivers send RTCP about once a second (RFC 3550 §6.2; ours and browsers): four missed
    /// reports is a problem that lasts, not a packet or two lost on the way.
    static let reconnectingAfter: Duration = .seconds(4)
    /// The notice goes this long after RTCP resumes, once more has come since: a single stray packet does
    /// not clear it.
    static let clearedAfter: Duration = .seconds(1)
    /// Many missed reports: the receiver is dropped (§8.5).
    static let timeout: Duration = .seconds(15)

    enum Change: Equatable {
        /// Its RTCP stopped `silentFor` ago: "Reconnecting to NAME…".
        case reconnecting(silentFor: Duration)
        /// Its RTCP came back and kept coming: the notice goes.
        case reconnected
        case lost
    }

    /// docs/behaviour.md §10.1's words, with a one-character ellipsis as the ladder's notices have (§5.5).
    static func notice(_ name: String) -> String {
        "Reconnecting to \(name)…"
    }

    private struct Receiver {
        var feedback: Int
        var heardAt: Instant
        var reconnecting = false
        /// When RTCP came back while reconnecting.
        var resumedAt: Instant?
        var lost = false
    }

    private var receivers: [String: Receiver] = [:]

    /// Feeds the receiver's feedback count; returns what changed, if anything.
    mutating func look(_ id: String, feedback: Int, now: Instant) -> Change? {
        guard var r = receivers[id] else {
            receivers[id] = Receiver(feedback: feedback, heardAt: now)
            return nil
        }
        defer { receivers[id] = r }
        if feedback != r.feedback {
            r.feedback = feedback
            r.heardAt = now
            if r.reconnecting && r.resumedAt == nil { r.resumedAt = now }
        }
        guard feedback > 0, !r.lost else { return nil }
        let silence = now - r.heardAt
        if silence >= Self.timeout {
            r.lost = true
            return .lost
        }
        if silence >= Self.reconnectingAfter {
            r.resumedAt = nil
            guard !r.reconnecting else { return nil }
            r.reconnecting = true
            return .reconnecting(silentFor: silence)
        }
        if r.reconnecting, let resumed = r.resumedAt, now - resumed >= Self.clearedAfter, r.heardAt > resumed {
            r.reconnecting = false
            r.resumedAt = nil
            return .reconnected
        }
        return nil
    }

    mutating func forget(_ id: String) {
        receivers.removeValue(forKey: id)
    }
}
