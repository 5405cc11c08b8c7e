/// What an encoder is asked to produce. Chosen by the send policy, carried out by `Codecs`.
public struct EncoderSettings: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Int
    /// Target bits a second, which the rate is also held to over any stretch
    /// (x264's VBV rate: with a higher one x264 no longer follows a bitrate
    /// raised on a running encoder).
    public var bitrate: Int
    /// How far frames may run ahead of `bitrate` (x264's VBV buffer), which
    /// bounds the largest frame, keyframes too.
    public var bufferBits: Int
    /// How much of that buffer a new encoder may spend at once (x264's initial
    /// VBV fill; nil: x264's nine tenths): bounds the first picture without
    /// shrinking the buffer the frames after it are planned in. Read only when
    /// an encoder starts.
    public var initialBufferBits: Int?
    public var profile: ProfileLevelID.Profile
    /// The level the SPS states; must admit width × height × fps.
    public var level: H264Level
    /// x264 preset: how much CPU a frame may take.
    public var preset: String
    /// Settings that keep text sharp rather than motion smooth (Text and detail).
    public var favourDetail: Bool
    /// A screen (every policy but Motion and video): what moves on it moves by
    /// whole pixels, so motion search need not refine to fractions of one.
    public var screenContent: Bool
    public var threads: Int

    /// x264's VBV buffer, in seconds of the target: how far one frame may
    /// run ahead. With a buffer of five frames or more x264 plans a frame at
    /// no more than half of what the buffer holds, so at 0.2 s a keyframe is
    /// about a tenth of a second of the link (a 720p one at 1.5 Mbit/s came
    /// to 29 KB, against 40 KB at 0.3 s): the pacer drains it in an eighth of
    /// a second at 1.2 × the target, and the frames behind it still reach a
    /// receiver that waits 200 ms for them (rtpbin's latency). At 0.15 s the
    /// simulated shares' estimates wandered from the link (docs/benchmarks.md).
    /// Text and detail keeps 0.3 s: at 15 fps or less each frame carries more,
    /// and its text lost a tenth of its SSIM with smaller frames.
    public static func bufferDuration(favourDetail: Bool) -> Double {
        favourDetail ? 0.3 : 0.2
    }

    /// The settings that carry out `plan` at the share's frame rate: the
    /// encoder always runs at that rate, and a plan at a lower one skips
    /// frames, with the bitrate scaled so that each frame gets what the
    /// lower rate affords (and a frame may then take one of its periods).
    /// The level is the lowest that admits the size at the share's rate, so
    /// the SPS says what the stream really is, and the bitrate stays within it.
    ///
    /// - Parameters:
    ///   - bitrate: what the encoder aims at, a share of `target`.
    ///   - target: the link's target, which sizes the largest frame.
    public static func carrying(
        _ plan: EncodingPlan, shareFPS: Int, bitrate: Int, target: Int, profile: ProfileLevelID.Profile, favourDetail: Bool,
        screenContent: Bool = true
    ) -> EncoderSettings {
        let level = H264Level.lowest(admitting: plan.width, plan.height, fps: shareFPS, bitrate: 0) ?? plan.level
        let skipped = Double(shareFPS) / Double(max(1, plan.fps))
        let scaled = min(Int(Double(bitrate) * skipped), level.maxBitrate)
        let buffer = Int(Double(target) * max(bufferDuration(favourDetail: favourDetail), 1 / Double(max(1, plan.fps))))
        return EncoderSettings(width: plan.width, height: plan.height, fps: shareFPS, bitrate: scaled, bufferBits: buffer,
                               profile: profile, level: level, favourDetail: favourDetail, screenContent: screenContent)
    }

    /// The encoder's threads for pictures of this size at this rate. One core
    /// encodes a 1080p screen at superfast in about 9 ms, well within a 30 fps
    /// frame period, and a second slice thread cost 10–20 % more CPU a frame in
    /// hand-offs between the two (docs/benchmarks.md) for a frame whole 2–2.5 ms
    /// sooner; its slices still leave as each is done. Above that pixel
    /// rate one core would fall behind, so two share the work.
    public static func threads(width: Int, height: Int, fps: Int) -> Int {
        width * height * fps <= 1920 * 1088 * 30 ? 1 : 2
    }

    /// Without a buffer, `bufferDuration` of the bitrate; without threads, `threads(width:height:fps:)`.
    public init(
        width: Int, height: Int, fps: Int, bitrate: Int, bufferBits: Int? = nil,
        profile: ProfileLevelID.Profile = .constrainedBaseline,
        level: H264Level? = nil, preset: String = "superfast",
        favourDetail: Bool = false, screenContent: Bool = true, threads: Int? = nil
    ) {
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrate = bitrate
        self.bufferBits = bufferBits ?? Int(Double(bitrate) * EncoderSettings.bufferDuration(favourDetail: favourDetail))
        self.profile = profile
        self.level = level ?? H264Level.lowest(admitting: width, height, fps: fps, bitrate: 0) ?? H264Level.all.last!
        self.preset = preset
        self.favourDetail = favourDetail
        self.screenContent = screenContent
        self.threads = threads ?? EncoderSettings.threads(width: width, height: height, fps: fps)
    }
}
