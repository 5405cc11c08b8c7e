import Encoding
import Testing

/// The policies' decisions as pure functions over a table of bitrates.
struct EncodingPlanTests {
    static let bitrates = [8_000_000, 4_000_000, 2_500_000, 1_500_000, 1_000_000, 600_000, 300_000]

    @Test(arguments: bitrates)
    func balancedHoldsTheFrameRateAndShrinksAsTheBitrateFalls(bitrate: Int) {
        let plan = EncodingPlan.make(policy: .balanced, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: bitrate, levelLimit: nil).plan
        #expect(plan.fps == 30)
        let bitsPerPixel = Double(bitrate) / Double(plan.width * plan.height * 30)
        if plan.width > 640 { #expect(bitsPerPixel >= EncodingPlanTests.stepDown, "\(plan.width)×\(plan.height) at \(bitrate)") }
    }

    static let stepDown = 0.04

    @Test func balancedSizeNeverGrowsAsTheBitrateFalls() {
        let widths = Self.bitrates.map {
            EncodingPlan.make(policy: .balanced, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: $0, levelLimit: nil).plan.width
        }
        #expect(widths == widths.sorted(by: >))
        #expect(widths.first == 1920)
        #expect(widths.last! < 1920)
    }

    @Test func balancedStepsBackUpOnlyWithHeadroom() {
        // At 0.75 scale after a fall, a bitrate just enough for full size at the step-down threshold stays at 0.75.
        let justEnough = Int(0.04 * 1920 * 1080 * 30) + 1
        let held = EncodingPlan.make(policy: .balanced, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: justEnough,
                                     levelLimit: nil, previousScale: 0.75)
        #expect(held.scale == 0.75)
        let fresh = EncodingPlan.make(policy: .balanced, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: justEnough, levelLimit: nil)
        #expect(fresh.scale == 1)
        let notYet = EncodingPlan.make(policy: .balanced, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: 8_000_000,
                                       levelLimit: nil, previousScale: 0.5, mayGrow: false)
        #expect(notYet.scale == 0.5)
    }

    @Test(arguments: bitrates)
    func detailHoldsTheSizeAndLetsFramesFall(bitrate: Int) {
        let plan = EncodingPlan.make(policy: .detail, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: bitrate, levelLimit: nil).plan
        #expect(plan.width == 1920 && plan.height == 1080)
        #expect(plan.fps >= 2 && plan.fps <= 30)
    }

    @Test func detailFrameRateFallsWithTheBitrate() {
        let rates = Self.bitrates.map {
            EncodingPlan.make(policy: .detail, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: $0, levelLimit: nil).plan.fps
        }
        #expect(rates == rates.sorted(by: >))
        #expect(rates.last! < 10)
    }

    @Test(arguments: bitrates)
    func motionHoldsTheFrameRateAt1280OnTheLongSideWithinLevel3_1(bitrate: Int) {
        let plan = EncodingPlan.make(policy: .motion, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: bitrate, levelLimit: nil).plan
        #expect(plan.fps == 30)
        #expect(plan.width <= 1280)
        #expect(H264Level.level3_1.admits(width: plan.width, height: plan.height, fps: 30))
    }

    @Test func recoveryShrinkMakesTheScreenAThirdSmaller() {
        let plan = EncodingPlan.make(policy: .detail, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: 4_000_000,
                                     levelLimit: nil, shrink: 2.0 / 3.0).plan
        #expect(plan.width == 1280 && plan.height == 720)
    }

    @Test func carryingAPlanAtALowerRateScalesTheBitrateForTheSkippedFrames() {
        let plan = EncodingPlan(width: 1920, height: 1080, fps: 10, level: H264Level.with(idc: 40)!)
        let settings = EncoderSettings.carrying(plan, shareFPS: 30, bitrate: 1_000_000, profile: .constrainedBaseline, favourDetail: true)
        #expect(settings.fps == 30)
        #expect(settings.bitrate == 3_000_000)
    }
}
