/// An H.264 level and its limits (ITU-T H.264 Table A-1).
public struct H264Level: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// `level_idc` as it appears in the SPS and in `profile-level-id` (31 = 3.1).
    public let idc: Int
    /// Macroblocks a second.
    public let maxMacroblocksPerSecond: Int
    /// Macroblocks a frame.
    public let maxFrameMacroblocks: Int
    /// Bits a second for the Baseline, Constrained Baseline and Main profiles.
    public let maxBitrate: Int

    public static func < (a: H264Level, b: H264Level) -> Bool { a.idc < b.idc }

    public var description: String { "\(idc / 10).\(idc % 10)" }

    public static let all: [H264Level] = [
        H264Level(idc: 10, maxMacroblocksPerSecond: 1_485, maxFrameMacroblocks: 99, maxBitrate: 64_000),
        H264Level(idc: 11, maxMacroblocksPerSecond: 3_000, maxFrameMacroblocks: 396, maxBitrate: 192_000),
        H264Level(idc: 12, maxMacroblocksPerSecond: 6_000, maxFrameMacroblocks: 396, maxBitrate: 384_000),
        H264Level(idc: 13, maxMacroblocksPerSecond: 11_880, maxFrameMacroblocks: 396, maxBitrate: 768_000),
        H264Level(idc: 20, maxMacroblocksPerSecond: 11_880, maxFrameMacroblocks: 396, maxBitrate: 2_000_000),
        H264Level(idc: 21, maxMacroblocksPerSecond: 19_800, maxFrameMacroblocks: 792, maxBitrate: 4_000_000),
        H264Level(idc: 22, maxMacroblocksPerSecond: 20_250, maxFrameMacroblocks: 1_620, maxBitrate: 4_000_000),
        H264Level(idc: 30, maxMacroblocksPerSecond: 40_500, maxFrameMacroblocks: 1_620, maxBitrate: 10_000_000),
        H264Level(idc: 31, maxMacroblocksPerSecond: 108_000, maxFrameMacroblocks: 3_600, maxBitrate: 14_000_000),
        H264Level(idc: 32, maxMacroblocksPerSecond: 216_000, maxFrameMacroblocks: 5_120, maxBitrate: 20_000_000),
        H264Level(idc: 40, maxMacroblocksPerSecond: 245_760, maxFrameMacroblocks: 8_192, maxBitrate: 20_000_000),
        H264Level(idc: 41, maxMacroblocksPerSecond: 245_760, maxFrameMacroblocks: 8_192, maxBitrate: 50_000_000),
        H264Level(idc: 42, maxMacroblocksPerSecond: 522_240, maxFrameMacroblocks: 8_704, maxBitrate: 50_000_000),
        H264Level(idc: 50, maxMacroblocksPerSecond: 589_824, maxFrameMacroblocks: 22_080, maxBitrate: 135_000_000),
        H264Level(idc: 51, maxMacroblocksPerSecond: 983_040, maxFrameMacroblocks: 36_864, maxBitrate: 240_000_000),
        H264Level(idc: 52, maxMacroblocksPerSecond: 2_073_600, maxFrameMacroblocks: 36_864, maxBitrate: 240_000_000),
    ]

    public static let level3_1 = H264Level.with(idc: 31)!

    public static func with(idc: Int) -> H264Level? {
        all.first { $0.idc == idc }
    }

    /// Parses "3.1" or "31". Only digits that can name a level are multiplied, so no text can overflow.
    public static func parse(_ text: String) -> H264Level? {
        if let dot = text.firstIndex(of: "."),
           let major = Int(text[..<dot]), let minor = Int(text[text.index(after: dot)...]),
           (0...9).contains(major), (0...9).contains(minor) {
            return with(idc: major * 10 + minor)
        }
        return Int(text).flatMap { (0..<10).contains($0) ? with(idc: $0 * 10) : with(idc: $0) }
    }

    public static func macroblocks(width: Int, height: Int) -> Int {
        ((width + 15) / 16) * ((height + 15) / 16)
    }

    /// Whether a stream of this size and rate (and bitrate) fits the level.
    public func admits(width: Int, height: Int, fps: Int, bitrate: Int = 0) -> Bool {
        let mbs = H264Level.macroblocks(width: width, height: height)
        return mbs <= maxFrameMacroblocks && mbs * fps <= maxMacroblocksPerSecond && bitrate <= maxBitrate
    }

    /// The lowest level that admits the stream: what its SPS should say.
    public static func lowest(admitting width: Int, _ height: Int, fps: Int, bitrate: Int) -> H264Level? {
        all.first { $0.admits(width: width, height: height, fps: fps, bitrate: bitrate) }
    }
}
