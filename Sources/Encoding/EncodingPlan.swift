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

    /// Bits a pixel a frame below which Balanced steps the size down. Screen
    /// content at 0.04 bpp still reads well; below it x264 smears text, and
    /// fewer, sharper pixels look better than many blurred ones.
    static let balancedStepDownBitsPerPixel = 0.04
    /// Balanced steps back up only with 30 % headroom, so it does not flap.
    static let balancedStepUpHeadroom = 1.3
    /// The sizes Balanced steps through, as fractions of the source's long side.
    static let balancedScales: [Double] = [1, 0.75, 2.0 / 3.0, 0.5, 1.0 / 3.0]
    /// Text and detail lets the frame rate fall rather than blur: at least this many bits a pixel a frame.
    static let detailBitsPerPixel = 0.06
    static let detailMinimumFPS = 2

    /// - Parameters:
    ///   - previousScale: the scale Balanced used last, for hysteresis (1 at start).
    ///   - mayGrow: whether Balanced may go back up yet (each size change costs a keyframe).
    ///   - levelLimit: the highest level the receiver takes (nil: any).
    ///   - shrink: extra scale from recovery (2/3 for a fresh encoder's 30 s).
    public static func make(
        policy: SendPolicy, sourceWidth: Int, sourceHeight: Int, fps: Int, bitrate: Int,
        levelLimit: H264Level?, previousScale: Double = 1, mayGrow: Bool = true, shrink: Double = 1
    ) -> (plan: EncodingPlan, scale: Double) {
        let limit = policy == .motion ? min(levelLimit ?? .level3_1, .level3_1) : levelLimit
        var scale = min(1, Double(policy.longSideLimit) / Double(max(sourceWidth, sourceHeight)))
        var rate = fps
        var chosenScale = 1.0
        switch policy {
        case .balanced:
            chosenScale = balancedScale(sourceWidth: sourceWidth, sourceHeight: sourceHeight, baseScale: scale,
                                        fps: fps, bitrate: bitrate, previous: previousScale)
            if !mayGrow { chosenScale = min(chosenScale, previousScale) }
            scale *= chosenScale
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
        return (EncodingPlan(width: w, height: h, fps: rate, level: level), chosenScale)
    }

    static func balancedScale(sourceWidth: Int, sourceHeight: Int, baseScale: Double, fps: Int, bitrate: Int, previous: Double) -> Double {
        func bitsPerPixel(_ s: Double) -> Double {
            let pixels = Double(sourceWidth) * Double(sourceHeight) * baseScale * baseScale * s * s
            return Double(bitrate) / (pixels * Double(fps))
        }
        var chosen = balancedScales.last!
        for s in balancedScales {
            let needed = s > previous ? balancedStepDownBitsPerPixel * balancedStepUpHeadroom : balancedStepDownBitsPerPixel
            if bitsPerPixel(s) >= needed {
                chosen = s
                break
            }
        }
        return chosen
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
