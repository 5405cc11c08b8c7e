import Encoding

/// What a share is asked for, as a whole: the same for every receiver.
public struct ShareParameters: Sendable {
    public var policy: SendPolicy
    public var fps: Int
    /// Motion is held within level 3.1 from the start of a share started in Motion.
    public var startedInMotion: Bool

    public init(policy: SendPolicy, fps: Int) {
        self.policy = policy
        self.fps = min(fps, 30)
        startedInMotion = policy == .motion
    }
}
