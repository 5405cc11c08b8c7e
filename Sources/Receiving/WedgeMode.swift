/// A synthetic wedged decoder, for the recovery gates: the receiver
/// swallows frames the way a real decoder that has stopped would.
public enum WedgeMode: String, Sendable, CaseIterable {
    /// Swallows frames until the next IDR: a keyframe mends it.
    case keyframe
    /// Swallows every frame of its decoder instance; only a new SSRC (a new
    /// decoder) mends it.
    case decoder
    /// Like `decoder`, and every new decoder wedges too, until a share-again.
    case sticky
    /// Never mends.
    case forever
}

/// Decides, frame by frame, whether the wedge swallows it.
struct Wedge {
    let mode: WedgeMode
    private(set) var active = false
    private var mendedByShareAgain = false
    /// The stream the share-again brought, when the relayed event named it.
    private var shareAgainSSRC: UInt32?
    private var wedgedSSRC: UInt32?

    init(mode: WedgeMode) {
        self.mode = mode
    }

    /// The wedge sets in (after its delay).
    mutating func engage(ssrc: UInt32?) {
        active = true
        wedgedSSRC = ssrc
    }

    /// Whether this frame is swallowed.
    mutating func swallows(ssrc: UInt32, isKeyframe: Bool) -> Bool {
        guard active else { return false }
        switch mode {
        case .keyframe:
            if isKeyframe {
                active = false
                return false
            }
            return true
        case .decoder:
            if ssrc != wedgedSSRC {
                active = false
                return false
            }
            return true
        case .sticky:
            if mendedByShareAgain && (ssrc == shareAgainSSRC || (shareAgainSSRC == nil && ssrc != wedgedSSRC)) {
                active = false
                return false
            }
            if ssrc != wedgedSSRC && !mendedByShareAgain {
                // A new decoder that wedges as well.
                wedgedSSRC = ssrc
            }
            return true
        case .forever:
            return true
        }
    }

    /// The call client relayed a share-again: the stream it names (or,
    /// unnamed, the next new one) decodes.
    mutating func shareAgainAnnounced(ssrc: UInt32?) {
        mendedByShareAgain = true
        shareAgainSSRC = ssrc
    }
}
