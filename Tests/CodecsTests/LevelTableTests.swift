import Synthetic
import Encoders
import Decoders
import Encoding
import Testing
import YUV
import Capture
import TestSupport

/// The level limits of docs/behaviour.md §3.4, checked in the SPS x264 really wrote: area and
/// rate, not only the long side, and the level the stream claims is the
/// level it is.
struct LevelTableTests {
    static let screens = [(1920, 1080), (1920, 1200), (2560, 1440), (3440, 1440), (1366, 768), (1280, 1024)]
    static let levels: [H264Level?] = [nil, .level3_1, H264Level.with(idc: 40), H264Level.with(idc: 51)]

    struct Case: CustomTestStringConvertible, Sendable {
        let width: Int
        let height: Int
        let policy: SendPolicy
        let level: H264Level?
        var testDescription: String { "\(width)×\(height) \(policy.rawValue) level \(level.map(\.description) ?? "any")" }
    }

    static let cases: [Case] = screens.flatMap { size in
        SendPolicy.allCases.flatMap { policy in levels.map { Case(width: size.0, height: size.1, policy: policy, level: $0) } }
    }

    @Test(arguments: cases)
    func encodedStreamKeepsWithinItsLevel(_ c: Case) throws {
        let fps = 30
        let source = CaptureLimits.capped(width: c.width, height: c.height)
        let plan = EncodingPlan.make(policy: c.policy, sourceWidth: source.width, sourceHeight: source.height, fps: fps,
                                     bitrate: 4_000_000, levelLimit: c.level)
        let settings = EncoderSettings.carrying(plan, shareFPS: fps, bitrate: 4_000_000, target: 4_000_000, profile: .constrainedBaseline, favourDetail: false)
        let encoder = try H264Encoder(settings: settings)
        let picture = I420Picture(width: settings.width, height: settings.height)
        let frame = try #require(try encoder.encode(picture, rtpTimestamp: 0, pts: 0, keyframe: true))
        let sps = try #require(SequenceParameterSet.find(inAnnexB: Array(frame.bytes)))

        #expect(sps.width == settings.width && sps.height == settings.height)
        let claimed = try #require(H264Level.with(idc: sps.levelIDC))
        #expect(claimed.admits(width: sps.width, height: sps.height, fps: fps, bitrate: settings.bitrate), "the SPS's level admits the stream")
        #expect(claimed == H264Level.lowest(admitting: sps.width, sps.height, fps: fps, bitrate: 0), "the SPS says the level the stream really is")
        let limit = c.policy == .motion ? min(c.level ?? .level3_1, .level3_1) : c.level
        if let limit {
            #expect(sps.macroblocks <= limit.maxFrameMacroblocks)
            #expect(sps.macroblocks * fps <= limit.maxMacroblocksPerSecond)
            #expect(settings.bitrate <= limit.maxBitrate)
            #expect(claimed <= limit)
        }
        #expect(max(sps.width, sps.height) <= c.policy.longSideLimit)
    }

    @Test func sixteenByTenScreenInMotionComesOutWithin3600Macroblocks() {
        let plan = EncodingPlan.make(policy: .motion, sourceWidth: 1920, sourceHeight: 1200, fps: 30, bitrate: 4_000_000, levelLimit: nil)
        #expect(H264Level.macroblocks(width: plan.width, height: plan.height) <= 3600)
        #expect(plan.width < 1280, "1280×800 is 4000 macroblocks: it breaks level 3.1")
        #expect(abs(Double(plan.width) / Double(plan.height) - 1.6) < 0.01)
    }
}
