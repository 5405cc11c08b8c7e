import Media

/// Tells a still screen from a stalled stream, once per frame period.
///
/// The rule:
/// - **Streaming, no new buffer, damage-driven producer** (it negotiated a
///   variable frame rate, 0/1, as compositors do): nothing changed on
///   screen, so the capture is alive: say *idle*.
/// - **Streaming, no new buffer, fixed-rate producer**: a short gap is
///   jitter (*idle*); once it lasts `stallLimit` the producer should have
///   sent frames and did not (a removed node leaves our stream "streaming"
///   with nothing linked), so *fail* (temporary) and let the watchdog restart.
/// - **Paused, connecting or unconnected**: frames cannot come. Say nothing;
///   once it lasts `stallLimit`, *fail* (temporary) in plain words.
/// - **Error**: *fail* at once with PipeWire's message.
/// A failure is said once per run; the watchdog's restart makes a new run.
struct PipeWireStreamHealth {
    enum Phase: Equatable {
        case connecting, paused, streaming, unconnected
        case error(String)
    }

    enum Verdict: Equatable {
        /// A frame came within the last period; nothing to add.
        case delivering
        case idle
        /// Say nothing: frames should come and did not.
        case silent
        case fail(String)
    }

    let stallLimit: Duration
    private(set) var phase = Phase.connecting
    private var phaseSince: Instant
    private var lastFrame: Instant?
    private var failed = false
    var damageDriven = false

    init(stallLimit: Duration, now: Instant) {
        self.stallLimit = stallLimit
        phaseSince = now
    }

    mutating func enter(_ phase: Phase, at now: Instant) {
        guard phase != self.phase else { return }
        self.phase = phase
        phaseSince = now
    }

    mutating func frameArrived(at now: Instant) {
        lastFrame = now
    }

    mutating func check(at now: Instant, period: Duration) -> Verdict {
        guard !failed else { return .silent }
        switch phase {
        case .error(let message):
            failed = true
            return .fail("The PipeWire screen stream failed: \(message)")
        case .connecting, .paused, .unconnected:
            guard now - phaseSince >= stallLimit else { return .silent }
            failed = true
            return .fail(stalledMessage)
        case .streaming:
            let quietSince = max(lastFrame ?? phaseSince, phaseSince)
            if now - quietSince < period { return .delivering }
            if damageDriven || now - quietSince < stallLimit { return .idle }
            failed = true
            return .fail(stalledMessage)
        }
    }

    private var stalledMessage: String {
        let milliseconds = Int(stallLimit / .milliseconds(1))
        let limit = milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
        switch phase {
        case .paused:
            return "The PipeWire screen stream has been paused for \(limit) s: the shared screen or window has gone away, or nothing linked it to screenshare"
        case .unconnected:
            return "The connection to PipeWire was lost and has not come back for \(limit) s"
        case .streaming:
            return "The PipeWire screen stream has sent no frames for \(limit) s although its producer runs at a fixed rate: the shared screen or window has gone away or stopped"
        default:
            return "The PipeWire screen stream did not start within \(limit) s"
        }
    }
}
