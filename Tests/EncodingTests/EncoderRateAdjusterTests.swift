import Encoding
import Media
import Testing

@Suite struct EncoderRateAdjusterTests {
    /// Feeds `seconds` of 30 fps frames, each `share` of what the adjusted bitrate asks for.
    private func run(_ adjuster: inout EncoderRateAdjuster, share: Double, seconds: Int, from start: Instant = .zero) -> Instant {
        let intended = 1_000_000.0 / 30
        var now = start
        for _ in 0..<(seconds * 30) {
            let asked = intended * adjuster.factor
            adjuster.record(frameBits: Int(asked * share), askedBits: asked, at: now)
            now = now + .milliseconds(33)
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
        #expect(abs(adjuster.factor - EncoderRateAdjuster.largestFactor) < 0.01)
        #expect(adjuster.factor <= EncoderRateAdjuster.largestFactor)
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
        for i in 0..<9 { adjuster.record(frameBits: 850, askedBits: 1000, at: .zero + .milliseconds(200 * i)) }
        #expect(adjuster.factor < 1.001)
        adjuster.record(frameBits: 850, askedBits: 1000, at: .zero + .seconds(2))
        #expect(adjuster.factor > 1)
    }
}
