import Media
import Recovery

/// What recovery did for one receiver since it joined, for the quality report: every step the
/// connection watchdog and the stall ladder took, how often its screen stopped leaving, and the
/// stalls its receiver reported with how long its view stayed frozen.
public struct RecoveryTally: Sendable, Equatable {
    /// Steps by name (`keyframe`, `freshEncoder`, `rebuild`, …), both machines' together.
    public var steps: [RecoveryStep: Int] = [:]
    /// Times the connection watchdog found frames going in and none leaving (its first step each time).
    public var screenStopped = 0
    /// `screenStalled` reports, counted when a freeze begins, not for each repeat.
    public var freezes = 0
    /// How long the receiver's view was reported frozen, ended freezes only; `frozenSince` holds the open one.
    public var frozen: Duration = .zero
    public var frozenSince: Instant?

    public init() {}

    /// Frozen time up to `now`, the freeze still open included.
    public func frozen(at now: Instant) -> Duration {
        frozen + (frozenSince.map { now - $0 } ?? .zero)
    }

    mutating func record(_ actions: [some RecoveryAction]) {
        for action in actions where action.step != .stoodDown && action.step != .skipped {
            steps[action.step, default: 0] += 1
        }
    }

    mutating func stall(reported stalled: Bool, at now: Instant) {
        switch (stalled, frozenSince) {
        case (true, nil):
            freezes += 1
            frozenSince = now
        case (false, let since?):
            frozen += now - since
            frozenSince = nil
        default:
            break
        }
    }
}
