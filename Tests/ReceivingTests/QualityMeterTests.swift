import Synthetic
import Foundation
import Testing
import YUV
@testable import Receiving

/// The luma a perfect encoder and decoder would hand back for `frame`, at `width`×`height`.
private func decodedLuma(_ screen: SyntheticScreen, frame: UInt64, width: Int, height: Int) -> [UInt8] {
    let bgrx = UnsafeMutableRawPointer.allocate(byteCount: screen.width * screen.height * 4, alignment: 64)
    defer { bgrx.deallocate() }
    screen.render(frame: frame, into: bgrx, stride: screen.width * 4)
    var full = [UInt8](repeating: 0, count: screen.width * screen.height)
    full.withUnsafeMutableBufferPointer {
        PixelConverter.luma(ofBGRx: bgrx, stride: screen.width * 4, width: screen.width, height: screen.height,
                            into: $0.baseAddress!, destinationStride: screen.width)
    }
    guard width != screen.width || height != screen.height else { return full }
    var scaled = [UInt8](repeating: 0, count: width * height)
    full.withUnsafeBufferPointer { f in
        scaled.withUnsafeMutableBufferPointer { s in
            PixelConverter.scaleLuma(f.baseAddress!, stride: screen.width, width: screen.width, height: screen.height,
                                     into: s.baseAddress!, destinationStride: width, width: width, height: height)
        }
    }
    return scaled
}

@Suite struct QualityMeterTests {
    let source = QualityMeter.Source(scenario: .motion, width: 640, height: 360, fps: 30, seed: 1)

    @Test func aPerfectCopyScoresOneAtFullAndScaledSizes() throws {
        let screen = SyntheticScreen(width: 640, height: 360, fps: 30, scenario: .motion, seed: 1)
        for (w, h) in [(640, 360), (320, 180)] {
            let meter = QualityMeter(source: source)
            defer { meter.stop() }
            let luma = decodedLuma(screen, frame: 41, width: w, height: h)
            let stamp = luma.withUnsafeBufferPointer {
                FrameStamp.read(luma: $0.baseAddress!, stride: w, width: w, sourceWidth: 640)
            }
            #expect(stamp == 41)
            #expect(luma.withUnsafeBufferPointer { meter.offer(frame: 41, luma: $0.baseAddress!, stride: w, width: w, height: h) })
            meter.drain()
            let s = meter.summary
            #expect(s.frames == 1 && s.lastFrame == 41)
            #expect(abs(s.ssim - 1) < 1e-9 && abs(s.ssimText - 1) < 1e-9)
            #expect(s.psnr == LumaComparison.psnrCap && s.psnrText == LumaComparison.psnrCap)
        }
    }

    @Test func theWrongSourceFrameScoresLowerAndTheMeansRun() throws {
        let screen = SyntheticScreen(width: 640, height: 360, fps: 30, scenario: .motion, seed: 1)
        let meter = QualityMeter(source: source)
        defer { meter.stop() }
        let luma = decodedLuma(screen, frame: 50, width: 640, height: 360)
        // Claimed to be frame 45: the page has scrolled 20 pixels since.
        luma.withUnsafeBufferPointer { _ = meter.offer(frame: 45, luma: $0.baseAddress!, stride: 640, width: 640, height: 360) }
        meter.drain()
        let wrong = meter.summary
        #expect(wrong.frames == 1 && wrong.ssim < 0.9 && wrong.psnr < 30)
        luma.withUnsafeBufferPointer { _ = meter.offer(frame: 50, luma: $0.baseAddress!, stride: 640, width: 640, height: 360) }
        meter.drain()
        let both = meter.summary
        #expect(both.frames == 2)
        #expect(abs(both.ssim - (wrong.ssim + 1) / 2) < 1e-9)
    }

    @Test func aFrameOfferedWhileBusyIsDroppedNotQueued() {
        let meter = QualityMeter(source: QualityMeter.Source(scenario: .motion, width: 1920, height: 1080))
        defer { meter.stop() }
        let luma = [UInt8](repeating: 128, count: 1920 * 1080)
        var accepted = 0
        for n in 0..<20 {
            if luma.withUnsafeBufferPointer({ meter.offer(frame: UInt32(n), luma: $0.baseAddress!, stride: 1920, width: 1920, height: 1080) }) {
                accepted += 1
            }
        }
        meter.drain()
        let s = meter.summary
        #expect(accepted >= 1 && accepted < 20)
        #expect(s.frames == accepted && s.dropped == 20 - accepted)
    }

    @Test func theTextAreaLeavesOutTheStampAndTheWindow() {
        let screen = SyntheticScreen(width: 1920, height: 1080, fps: 30, scenario: .motion, seed: 1)
        let regions = QualityMeter.regions(screen: screen, frame: 10, decodedWidth: 1280, decodedHeight: 720)
        #expect(regions[0].area == .init(x: 0, y: 11, width: 1280, height: 709))
        #expect(regions[1].area.y == 11 && regions[1].excluding.count == 1)
        let window = regions[1].excluding[0]
        #expect(window.width >= 1920 * 3 / 10 * 2 / 3 && window.y == 240)
    }
}
