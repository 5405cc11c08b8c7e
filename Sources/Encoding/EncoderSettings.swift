/// What an encoder is asked to produce. Chosen by the send policy, carried out by `Codecs`.
public struct EncoderSettings: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Int
    /// Target bits a second.
    public var bitrate: Int
    public var profile: ProfileLevelID.Profile
    /// The level the SPS states; must admit width × height × fps.
    public var level: H264Level
    /// x264 preset: how much CPU a frame may take.
    public var preset: String
    /// Settings that keep text sharp rather than motion smooth (Text and detail).
    public var favourDetail: Bool
    public var threads: Int

    public init(
        width: Int, height: Int, fps: Int, bitrate: Int,
        profile: ProfileLevelID.Profile = .constrainedBaseline,
        level: H264Level? = nil, preset: String = "superfast",
        favourDetail: Bool = false, threads: Int = 2
    ) {
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrate = bitrate
        self.profile = profile
        self.level = level ?? H264Level.lowest(admitting: width, height, fps: fps, bitrate: 0) ?? H264Level.all.last!
        self.preset = preset
        self.favourDetail = favourDetail
        self.threads = threads
    }
}
