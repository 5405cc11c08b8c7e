import Encoding
import Media
import Testing

/// Balanced's size on a timeline of bitrates (docs/behaviour.md §3.2): a dead
/// band between stepping down and growing, and growth only after 5 s of room.
struct BalancedSizerTests {
    /// Bits a pixel for a 1920×1080 source at 30 fps.
    static func bits(_ bitrate: Double) -> (Double) -> Double {
        { s in bitrate / (1920 * 1080 * s * s * 30) }
    }

    @Test func aSawingEstimateKeepsOneSize() {
        // 1.5 Mbit/s backing off to 0.85 and climbing back, every 2 s for
        // 20 s: 1280×720 (2/3) gets 0.034–0.040 bits a pixel, inside the band.
        var sizer = BalancedSizer()
        var scales: Set<Double> = []
        for tenth in 0..<200 {
            let phase = Double(tenth % 20) / 20
            let bitrate = 1_275_000 * 0.85 + 225_000 * 0.85 * phase
            scales.insert(sizer.update(bitsPerPixel: Self.bits(bitrate), settled: true, at: .seconds(Double(tenth) / 10)))
        }
        #expect(scales == [1, 2.0 / 3.0] || scales == [2.0 / 3.0], "\(scales)")
        #expect(sizer.scale == 2.0 / 3.0)
    }

    @Test func stepsDownAtOnceToTheLargestSizeThatFits() {
        // 0 s: 4 Mbit/s, full size. 1 s: 600 kbit/s: one step, to 1/2 (0.0386), not to every size on the way.
        var sizer = BalancedSizer()
        #expect(sizer.update(bitsPerPixel: Self.bits(4_000_000), settled: true, at: .zero) == 1)
        #expect(sizer.update(bitsPerPixel: Self.bits(720_000), settled: true, at: .seconds(1)) == 0.5)
    }

    @Test func growsOnlyAfterFiveSecondsOfRoomWithoutABreak() {
        // At 1/2 after a fall; from 10 s 4 Mbit/s (full size gets 0.064).
        // A dip at 12 s to 2 Mbit/s leaves room for 3/4 but not for full size:
        // 3/4 at 15 s, full size at 17 s, not at 15.
        var sizer = BalancedSizer()
        _ = sizer.update(bitsPerPixel: Self.bits(720_000), settled: true, at: .zero)
        var grewAt: [Double: Double] = [:]
        for tenth in 100...200 {
            let t = Double(tenth) / 10
            let bitrate = abs(t - 12) < 0.05 ? 2_000_000.0 : 4_000_000
            let scale = sizer.update(bitsPerPixel: Self.bits(bitrate), settled: true, at: .seconds(t))
            if grewAt[scale] == nil { grewAt[scale] = t }
        }
        #expect(grewAt[0.75] == 15, "\(grewAt)")
        #expect(grewAt[1] == 17.1, "\(grewAt)")
    }

    @Test func aBitrateStillBeingProbedChangesNothing() {
        // 300 kbit/s at the start, a probe out: the first frames keep full size.
        var sizer = BalancedSizer()
        #expect(sizer.update(bitsPerPixel: Self.bits(255_000), settled: false, at: .zero) == 1)
        #expect(sizer.update(bitsPerPixel: Self.bits(255_000), settled: true, at: .seconds(0.2)) == 1.0 / 3.0)
    }

    @Test func aBitrateThePathWasNotShownToCarry_isNoRoomToGrowInto() {
        // At 1/2 after a fall; from 10 s 4 Mbit/s, above where the path last ran out until 13 s:
        // those three seconds count for nothing, and full size comes at 18 s, not 15.
        var sizer = BalancedSizer()
        _ = sizer.update(bitsPerPixel: Self.bits(720_000), settled: true, at: .zero)
        var grewAt: Double?
        for tenth in 100...200 {
            let t = Double(tenth) / 10
            let scale = sizer.update(bitsPerPixel: Self.bits(4_000_000), settled: true, tried: t >= 13, at: .seconds(t))
            if scale == 1, grewAt == nil { grewAt = t }
        }
        #expect(grewAt == 18, "\(String(describing: grewAt))")
        // An untried bitrate still steps down: it is lower than the size in use needs.
        #expect(sizer.update(bitsPerPixel: Self.bits(720_000), settled: true, tried: false, at: .seconds(21)) == 0.5)
    }

    /// At 1/2 after a fall, then `bitrate` from 10 s to 20 s: the scale at the end.
    static func grown(to bitrate: Double, fromLossAlone: Bool) -> Double {
        var sizer = BalancedSizer()
        _ = sizer.update(bitsPerPixel: Self.bits(720_000), settled: true, at: .zero)
        for tenth in 100...200 {
            _ = sizer.update(bitsPerPixel: Self.bits(bitrate), settled: true, fromLossAlone: fromLossAlone, at: .seconds(Double(tenth) / 10))
        }
        return sizer.scale
    }

    @Test func anEstimateFromLossAlone_isRoomToGrowIntoForOnlyPartOfIt() {
        // 1.52 Mbit/s gives 1280×720 (2/3) 0.055 bits a pixel: room, with queueing delay to keep
        // the estimate; from loss alone, 0.8 of it is 0.044, not room. 1.9 Mbit/s is room either way.
        #expect(Self.grown(to: 1_520_000, fromLossAlone: false) == 2.0 / 3.0)
        #expect(Self.grown(to: 1_520_000, fromLossAlone: true) == 0.5)
        #expect(Self.grown(to: 1_900_000, fromLossAlone: true) == 2.0 / 3.0)
    }
}
