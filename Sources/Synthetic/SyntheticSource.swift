import Media
import Capture

/// The generated screen as a capture source: draws a frame only when the
/// screen changed (as damage tracking would), and says "idle" otherwise.
public final class SyntheticSource: CaptureSource, @unchecked Sendable {
    // Safety: `starts` is only touched by start, which the share calls from one thread at a time.
    public let screen: SyntheticScreen
    private let ticker: FrameTicker
    /// For tests: from this frame on, the source's first run stops
    /// delivering anything, not even "idle", as a wedged capture would; the
    /// watchdog's restart mends it.
    public let stallAfterFrame: UInt64?
    private var starts = 0

    public init(width: Int, height: Int, fps: Int, scenario: SyntheticScreen.Scenario = .demo,
                seed: UInt64 = 1, stallAfterFrame: UInt64? = nil) {
        let size = CaptureLimits.capped(width: width, height: height)
        let rate = min(fps, CaptureLimits.maxFPS)
        screen = SyntheticScreen(width: size.width, height: size.height, fps: rate, scenario: scenario, seed: seed)
        ticker = FrameTicker(fps: rate, name: "capture-synthetic")
        self.stallAfterFrame = stallAfterFrame
    }

    public var name: String { "synthetic \(screen.width)×\(screen.height) \(screen.scenario.rawValue)" }
    public var frameSize: (width: Int, height: Int) { (screen.width, screen.height) }
    public var subject: CaptureSubject { CaptureSubject(.generated) }

    public func start(_ output: CaptureOutput) throws(CaptureError) {
        let screen = self.screen
        starts += 1
        let stallAfter = starts == 1 ? stallAfterFrame : nil
        ticker.start(on: output.clock) { frame in
            if let stallAfter, frame >= stallAfter { return false }
            guard screen.changes(at: frame) else {
                output.idle()
                return false
            }
            return output.write(frameNumber: frame, width: screen.width, height: screen.height) { surface in
                screen.render(frame: frame, into: surface.pixels, stride: surface.stride)
                return true
            }
        }
    }

    public func stop() {
        ticker.stop()
    }
}
