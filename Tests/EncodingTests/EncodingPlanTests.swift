import Encoding
import Testing

/// The policies' decisions as pure functions over a table of bitrates.
struct EncodingPlanTests {
    static let bitrates = [8_000_000, 4_000_000, 2_500_000, 1_500_000, 1_000_000, 600_000, 300_000]

    @Test(arguments: bitrates)
    func balancedHoldsTheFrameRateAndShrinksAsTheBitrateFalls(bitrate: Int) {
        let plan = EncodingPlan.make(policy: .balanced, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: bitrate, levelLimit: nil)
        #expect(plan.fps == 30)
        let bitsPerPixel = Double(bitrate) / Double(plan.width * plan.height * 30)
        if plan.width > 640 { #expect(bitsPerPixel >= EncodingPlanTests.stepDown, "\(plan.width)×\(plan.height) at \(bitrate)") }
    }

    static let stepDown = BalancedSizer.landAt

    @Test func balancedSizeNeverGrowsAsTheBitrateFalls() {
        let widths = Self.bitrates.map {
            EncodingPlan.make(policy: .balanced, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: $0, levelLimit: nil).width
        }
        #expect(widths == widths.sorted(by: >))
        #expect(widths.first == 1920)
        #expect(widths.last! < 1920)
    }

    @Test func balancedScaleGivenIsKept() {
        let plan = EncodingPlan.make(policy: .balanced, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: 8_000_000,
                                     levelLimit: nil, balancedScale: 0.5)
        #expect(plan.width == 960 && plan.height == 540)
    }

    @Test(arguments: bitrates)
    func detailHoldsTheSizeAndLetsFramesFall(bitrate: Int) {
        let plan = EncodingPlan.make(policy: .detail, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: bitrate, levelLimit: nil)
        #expect(plan.width == 1920 && plan.height == 1080)
        #expect(plan.fps >= 2 && plan.fps <= 30)
    }

    @Test func detailFrameRateFallsWithTheBitrate() {
        let rates = Self.bitrates.map {
            EncodingPlan.make(policy: .detail, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: $0, levelLimit: nil).fps
        }
        #expect(rates == rates.sorted(by: >))
        #expect(rates.last! < 10)
    }

    @Test(arguments: bitrates)
    func motionHoldsTheFrameRateAt1280OnTheLongSideWithinLevel3_1(bitrate: Int) {
        let plan = EncodingPlan.make(policy: .motion, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: bitrate, levelLimit: nil)
        #expect(plan.fps == 30)
        #expect(plan.width <= 1280)
        #expect(H264Level.level3_1.admits(width: plan.width, height: plan.height, fps: 30))
    }

    @Test func recoveryShrinkMakesTheScreenAThirdSmaller() {
        let plan = EncodingPlan.make(policy: .detail, sourceWidth: 1920, sourceHeight: 1080, fps: 30, bitrate: 4_000_000,
                                     levelLimit: nil, shrink: 2.0 / 3.0)
        #expect(plan.width == 1280 && plan.height == 720)
    }

    @Test func carryingAPlanAtALowerRateScalesTheBitrateForTheSkippedFrames() {
        let plan = EncodingPlan(width: 1920, height: 1080, fps: 10, level: H264Level.with(idc: 40)!)
        let settings = EncoderSettings.carrying(plan, shareFPS: 30, bitrate: 1_000_000, target: 1_200_000, profile: .constrainedBaseline,
                                                favourDetail: true)
        #expect(settings.fps == 30)
        #expect(settings.bitrate == 3_000_000)
        // At 10 fps a frame may take its tenth of a second of the target.
        #expect(settings.bufferBits == 360_000)
    }

    @Test func vbvIsSizedToTheTarget_aFifthOfASecond_textAndDetailAThird() {
        // docs/behaviour.md §3.3: 1.5 Mbit/s target, encoder (and VBV rate) at 0.85 of it, buffer 0.2 s of
        // the target, 0.3 s for Text and detail.
        let plan = EncodingPlan(width: 1280, height: 720, fps: 30, level: .level3_1)
        let settings = EncoderSettings.carrying(plan, shareFPS: 30, bitrate: 1_275_000, target: 1_500_000, profile: .constrainedBaseline,
                                                favourDetail: false)
        #expect(settings.bitrate == 1_275_000)
        #expect(settings.bufferBits == 300_000)
        let detail = EncoderSettings.carrying(plan, shareFPS: 30, bitrate: 1_275_000, target: 1_500_000, profile: .constrainedBaseline,
                                              favourDetail: true)
        #expect(detail.bufferBits == 450_000)
    }
}
