/// Turns a policy, a source size, a bitrate and a level limit into the
/// size, rate and x264 settings to encode with. Pure, so every decision is
/// tested over a table.
public struct EncodingPlan: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Int
    public var level: H264Level

    public init(width: Int, height: Int, fps: Int, level: H264Level) {
        self.width = width
        self.height = height
        self.fps = fps
        self.level = level
    }

    /// Text and detail lets the frame rate fall rather than blur: at least this many bits a pixel a frame.
    static let detailBitsPerPixel = 0.06
    static let detailMinimumFPS = 2

    /// - Parameters:
    ///   - balancedScale: the size Balanced uses (a `BalancedSizer`'s); nil
    ///     picks afresh, the largest that gets `BalancedSizer.landAt` bits a pixel.
    ///   - levelLimit: the highest level the receiver takes (nil: any).
    ///   - shrink: extra scale from recovery (2/3 for a fresh encoder's 30 s).
    public static func make(
        policy: SendPolicy, sourceWidth: Int, sourceHeight: Int, fps: Int, bitrate: Int,
        levelLimit: H264Level?, balancedScale: Double? = nil, shrink: Double = 1
    ) -> EncodingPlan {
        let limit = policy == .motion ? min(levelLimit ?? .level3_1, .level3_1) : levelLimit
        var scale = baseScale(policy: policy, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        var rate = fps
        switch policy {
        case .balanced:
            let bits = balancedBitsPerPixel(policy: policy, sourceWidth: sourceWidth, sourceHeight: sourceHeight, fps: fps, bitrate: bitrate)
            scale *= balancedScale ?? BalancedSizer.largest(bits, getting: BalancedSizer.landAt)
        case .detail:
            let pixels = Double(sourceWidth) * Double(sourceHeight) * scale * scale
            let affordable = Int(Double(bitrate) / (pixels * detailBitsPerPixel))
            rate = max(detailMinimumFPS, min(fps, affordable))
        case .motion:
            break
        }
        scale *= shrink
        var (w, h) = even(sourceWidth, sourceHeight, scale)
        if let limit {
            (w, h) = fit(width: w, height: h, fps: rate, level: limit)
        }
        let level = H264Level.lowest(admitting: w, h, fps: rate, bitrate: 0) ?? H264Level.all.last!
        return EncodingPlan(width: w, height: h, fps: rate, level: level)
    }

    /// What each pixel of a Balanced frame at scale `s` of the source gets.
    public static func balancedBitsPerPixel(
        policy: SendPolicy, sourceWidth: Int, sourceHeight: Int, fps: Int, bitrate: Int
    ) -> @Sendable (Double) -> Double {
        let base = baseScale(policy: policy, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        let sourcePixels = Double(sourceWidth) * Double(sourceHeight) * base * base
        return { s in Double(bitrate) / (sourcePixels * s * s * Double(max(fps, 1))) }
    }

    /// The policy's own cap on the long side.
    static func baseScale(policy: SendPolicy, sourceWidth: Int, sourceHeight: Int) -> Double {
        min(1, Double(policy.longSideLimit) / Double(max(sourceWidth, sourceHeight)))
    }

    static func even(_ width: Int, _ height: Int, _ scale: Double) -> (Int, Int) {
        let w = max(16, Int((Double(width) * scale).rounded()) & ~1)
        let h = max(16, Int((Double(height) * scale).rounded()) & ~1)
        return (w, h)
    }

    /// Shrinks (keeping the aspect ratio) until the frame's macroblocks, and
    /// macroblocks a second, fit the level. The limit is on area: 1280×800
    /// is 4000 macroblocks and breaks level 3.1 even though its long side fits.
    static func fit(width: Int, height: Int, fps: Int, level: H264Level) -> (Int, Int) {
        var w = width
        var h = height
        let aspect = Double(height) / Double(width)
        while !level.admits(width: w, height: h, fps: fps) && w > 16 {
            w -= 2
            h = max(2, Int((Double(w) * aspect).rounded()) & ~1)
        }
        return (w, h)
    }
}
