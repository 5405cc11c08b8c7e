import Foundation
import Capture
import CapturePipeWire
import TestSupport
import Media
import Synchronization

/// Keeps what a capture delivered, checked as it arrives (surfaces are reused).
final class RecordingSink: CaptureSink {
    struct Frame: Sendable {
        let number: UInt64
        let width: Int
        let height: Int
        /// Every sampled pixel had frame `number`'s colour.
        let patternMatches: Bool
        let cursorPixel: UInt32?
        let arrival: ContinuousClock.Instant
        /// When the capture began, on the capture's clock.
        let captured: Instant
    }

    private let state = Mutex<(frames: [Frame], idles: Int, failures: [CaptureError])>(([], 0, []))
    private let cursorProbe: (x: Int, y: Int)?

    init(cursorProbe: (x: Int, y: Int)? = nil) {
        self.cursorProbe = cursorProbe
    }

    func captured(_ surface: Surface) {
        let number = PipeWireTestPattern.frameNumber(in: surface)
        let expected = PipeWireTestPattern.colour(frame: number)
        let samples = [(1, 0), (surface.width - 1, 0), (surface.width / 2, surface.height / 2),
                       (surface.width - 1, surface.height - 1), (0, surface.height - 1)]
        let matches = samples.allSatisfy { surface.pixel(x: $0.0, y: $0.1) & 0x00FF_FFFF == expected }
        let cursor = cursorProbe.map { surface.pixel(x: $0.x, y: $0.y) & 0x00FF_FFFF }
        let frame = Frame(number: number, width: surface.width, height: surface.height, patternMatches: matches,
                          cursorPixel: cursor, arrival: .now, captured: surface.captureTime)
        state.withLock { $0.frames.append(frame) }
    }

    func captureIdle() {
        state.withLock { $0.idles += 1 }
    }

    func captureFailed(_ error: CaptureError) {
        state.withLock { $0.failures.append(error) }
    }

    var frames: [Frame] { state.withLock { $0.frames } }
    var failures: [CaptureError] { state.withLock { $0.failures } }

    /// Waits (polling every 20 ms) until `condition` holds or `limit` passes.
    func wait(upTo limit: Duration, until condition: (RecordingSink) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            Thread.sleepMs(20)
        }
        return condition(self)
    }
}

extension Thread {
    static func sleepMs(_ milliseconds: Int) {
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
    }
}
