import Foundation
import Testing
@testable import Receiving

/// A textured plane: a deterministic mix of gradients and noise, so SSIM has structure to compare.
private func texture(width: Int, height: Int, seed: UInt64 = 7) -> [UInt8] {
    var state = seed
    return (0..<width * height).map { i in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let x = i % width, y = i / width
        let base = (x * 3 + y * 2) % 200
        return UInt8(clamping: 20 + base + Int(state >> 60))
    }
}

private func noised(_ plane: [UInt8], amplitude: Int, seed: UInt64 = 3) -> [UInt8] {
    var state = seed
    return plane.map { v in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let n = Int(state >> 33) % (2 * amplitude + 1) - amplitude
        return UInt8(clamping: Int(v) + n)
    }
}

@Suite struct LumaComparisonTests {
    @Test func identicalPlanesAreSSIMOneAndPSNRCapped() {
        let a = texture(width: 64, height: 48)
        let r = LumaComparison.compare(a, a, width: 64, height: 48)
        #expect(abs(r.ssim - 1) < 1e-12)
        #expect(r.psnr == LumaComparison.psnrCap)
        // 8×8 windows stepped by 4: (64/4 − 1) × (48/4 − 1).
        #expect(r.windows == 15 * 11)
        #expect(r.pixels == 64 * 48)
    }

    @Test func flatPlanesOffsetByFiveHaveTheTextbookFigures() {
        let a = [UInt8](repeating: 100, count: 32 * 32)
        let b = [UInt8](repeating: 105, count: 32 * 32)
        let r = LumaComparison.compare(a, b, width: 32, height: 32)
        // MSE 25: 10·log10(255²/25) = 34.151 dB.
        #expect(abs(r.psnr - 10 * log10(65025.0 / 25)) < 1e-9)
        #expect(abs(r.psnr - 34.151) < 0.001)
        // No variance: SSIM is the luminance term alone, (2·100·105 + C1) / (100² + 105² + C1).
        let c1 = 6.5025
        #expect(abs(r.ssim - (21000 + c1) / (10000 + 11025 + c1)) < 1e-12)
    }

    @Test func moreNoiseOrAShiftScoresLower() {
        let a = texture(width: 96, height: 64)
        let light = LumaComparison.compare(a, noised(a, amplitude: 3), width: 96, height: 64)
        let heavy = LumaComparison.compare(a, noised(a, amplitude: 30), width: 96, height: 64)
        var shifted = a
        for y in 0..<64 { for x in 1..<96 { shifted[y * 96 + x] = a[y * 96 + x - 1] } }
        let shift = LumaComparison.compare(a, shifted, width: 96, height: 64)
        #expect(light.ssim < 1 && light.ssim > heavy.ssim)
        #expect(light.psnr > heavy.psnr)
        #expect(heavy.ssim > 0 && heavy.psnr > 10)
        #expect(shift.ssim < 1 && shift.psnr < LumaComparison.psnrCap)
    }

    @Test func aRegionAndAnExcludedRectangleLeaveOutTheirDamage() {
        let a = texture(width: 64, height: 64)
        var b = a
        // Damage only inside (32, 32)–(48, 48).
        for y in 32..<48 { for x in 32..<48 { b[y * 64 + x] = 255 &- a[y * 64 + x] } }
        let whole = LumaComparison.compare(a, b, width: 64, height: 64)
        let damage = LumaComparison.Rect(x: 32, y: 32, width: 16, height: 16)
        let without = LumaComparison.compare(a, b, width: 64, height: 64, excluding: [damage])
        let top = LumaComparison.compare(a, b, width: 64, height: 64, area: .init(x: 0, y: 0, width: 64, height: 32))
        #expect(whole.ssim < 0.95)
        #expect(abs(without.ssim - 1) < 1e-12 && without.psnr == LumaComparison.psnrCap)
        #expect(abs(top.ssim - 1) < 1e-12 && top.windows == 15 * 7)
        #expect(without.pixels == 64 * 64 - 16 * 16)
    }

    @Test func rectanglesScaleOutward() {
        let r = LumaComparison.Rect(x: 0, y: 16, width: 1920, height: 1064)
            .scaled(from: (1920, 1080), to: (1280, 720))
        #expect(r == .init(x: 0, y: 10, width: 1280, height: 710))
        let w = LumaComparison.Rect(x: 3, y: 5, width: 10, height: 10).scaled(from: (100, 100), to: (50, 50))
        #expect(w == .init(x: 1, y: 2, width: 6, height: 6))
    }
}
