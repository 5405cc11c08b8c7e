import Encoding
import Media
import Testing

@Suite struct EncoderRateAdjusterTests {
    /// Feeds `seconds` of frames at `fps`, each `share` of what the adjusted bitrate of 1 Mbit/s
    /// asks for, into a buffer of `bufferSeconds` of that bitrate.
    private func run(_ adjuster: inout EncoderRateAdjuster, share: Double, seconds: Int, from start: Instant = .zero,
                     fps: Int = 30, bufferSeconds: Double = 0.2) -> Instant {
        let intended = 1_000_000.0 / Double(fps)
        var now = start
        for _ in 0..<(seconds * fps) {
            let asked = intended * adjuster.factor
            adjuster.record(frameBits: Int(asked * share), askedBits: asked, bufferBits: Int(1_000_000 * bufferSeconds), at: now)
            now = now + .milliseconds(1000 / fps)
        }
        return now
    }

    @Test func anEncoderThatSendsATenthShort_isAskedForAsMuchMore() {
        var adjuster = EncoderRateAdjuster()
        _ = run(&adjuster, share: 0.9, seconds: 8)
        #expect(abs(adjuster.factor - 1 / 0.9) < 0.01)
    }

    @Test func theBoostIsBounded() {
        var adjuster = EncoderRateAdjuster()
        _ = run(&adjuster, share: 0.75, seconds: 8)
        #expect(abs(adjuster.factor - EncoderRateAdjuster.roomyBuffer.largestFactor) < 0.01)
        #expect(adjuster.factor <= EncoderRateAdjuster.roomyBuffer.largestFactor)
    }

    /// Text and detail at 10 fps with 0.3 s of buffer: three frames, where x264 falls further
    /// short, so it is raised further and a share of 0.6 is still a shortfall, not simple content.
    @Test func anEncoderWithABufferOfFewFrames_mayBeRaisedFurther() {
        var adjuster = EncoderRateAdjuster()
        _ = run(&adjuster, share: 0.75, seconds: 10, fps: 10, bufferSeconds: 0.3)
        #expect(adjuster.bounds == EncoderRateAdjuster.shortBuffer)
        #expect(abs(adjuster.factor - 1 / 0.75) < 0.01)
        var short = EncoderRateAdjuster()
        _ = run(&short, share: 0.6, seconds: 10, fps: 10, bufferSeconds: 0.3)
        #expect(abs(short.factor - EncoderRateAdjuster.shortBuffer.largestFactor) < 0.01)
        var roomy = EncoderRateAdjuster()
        _ = run(&roomy, share: 0.6, seconds: 10)
        #expect(roomy.bounds == EncoderRateAdjuster.roomyBuffer)
        #expect(roomy.factor < 1.001)
    }

    @Test func contentThatCannotUseTheBits_getsNoBoost_andLosesOneItHad() {
        var adjuster = EncoderRateAdjuster()
        var now = run(&adjuster, share: 0.9, seconds: 8)
        #expect(adjuster.factor > 1.1)
        now = run(&adjuster, share: 0.2, seconds: 8, from: now)
        #expect(adjuster.factor < 1.01)
    }

    @Test func anEncoderOnTarget_orOver_isLeftAlone() {
        var adjuster = EncoderRateAdjuster()
        _ = run(&adjuster, share: 1.0, seconds: 4)
        #expect(adjuster.factor < 1.001)
        _ = run(&adjuster, share: 1.3, seconds: 4, from: .seconds(10.0))
        #expect(adjuster.factor < 1.001)
    }

    @Test func aWindowNeedsASecondAndTenFrames() {
        var adjuster = EncoderRateAdjuster()
        for i in 0..<9 { adjuster.record(frameBits: 850, askedBits: 1000, bufferBits: 6000, at: .zero + .milliseconds(200 * i)) }
        #expect(adjuster.factor < 1.001)
        adjuster.record(frameBits: 850, askedBits: 1000, bufferBits: 6000, at: .zero + .seconds(2))
        #expect(adjuster.factor > 1)
    }
}
