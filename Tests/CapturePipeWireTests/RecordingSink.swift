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
    /// Broadcast on whatever the capture delivers, so a wait wakes at once rather than polling.
    private let delivered = SystemClock().makeCondition()
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
        record { $0.frames.append(frame) }
    }

    func captureIdle() {
        record { $0.idles += 1 }
    }

    func captureFailed(_ error: CaptureError) {
        record { $0.failures.append(error) }
    }

    var frames: [Frame] { state.withLock { $0.frames } }
    var failures: [CaptureError] { state.withLock { $0.failures } }

    private func record(_ change: (inout (frames: [Frame], idles: Int, failures: [CaptureError])) -> Void) {
        delivered.withLock {
            state.withLock { change(&$0) }
            delivered.broadcast()
        }
    }

    /// Waits until `condition` holds or `limit` passes, re-checking as each delivery comes.
    func wait(upTo limit: Duration, until condition: (RecordingSink) -> Bool) -> Bool {
        let deadline = SystemClock().now + limit
        return delivered.withLock {
            while !condition(self), delivered.wait(until: deadline) {}
            return condition(self)
        }
    }
}

/// The test producer's node id, which the daemon gives it within moments.
func waitForNode(_ producer: PipeWireTestProducer) throws -> UInt32 {
    guard let node = producer.waitForNode(within: .seconds(5)) else { throw TestFailure("the test producer got no node id") }
    return node
}
