import Foundation
import Synchronization
import Capture

/// An X11 display as a capture source: the screen, one RandR monitor, a
/// region or a window, through XCB with MIT-SHM, the cursor drawn in, and
/// DAMAGE deciding whether a look captures at all (a still screen does not)
/// and starting a capture as soon as the screen changes.
///
/// Each `start` opens a new connection, so the watchdog's restart mends a
/// capture whose X server went away and came back.
public final class X11Source: CaptureSource {
    public let display: String?
    public let target: X11Target
    public let fps: Int
    private let ticker: FrameTicker
    private let log: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        var capture: X11Capture?
        var frameSize = (width: 0, height: 0)
        var windowTitle: String?
        /// Notes already logged: a restart must not repeat them.
        var notes: Set<String> = []
    }

    /// `display` as in DISPLAY (":1"); nil means DISPLAY. `fps` is capped at 30.
    /// `log` hears, once each, why the capture runs in a lesser mode (no MIT-SHM,
    /// no DAMAGE, no XFixes).
    public init(display: String?, target: X11Target, fps: Int, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.display = display
        self.target = target
        self.fps = max(1, min(fps, CaptureLimits.maxFPS))
        self.log = log
        ticker = FrameTicker(fps: self.fps, name: "capture-x11")
    }

    public var name: String { "X11 \(display ?? "DISPLAY") \(target.description)" }

    /// The size of the frames being captured; (0, 0) until the first start has
    /// measured the target. A shared window's size follows the window.
    public var frameSize: (width: Int, height: Int) { state.withLock { $0.frameSize } }

    /// The monitor by name, the window by id and (once started) title.
    public var subject: CaptureSubject {
        switch target {
        case .screen: return CaptureSubject(.screen)
        case .monitor(let name): return CaptureSubject(.monitor, name: name)
        case .region: return CaptureSubject(.region)
        case .window(let id): return CaptureSubject(.window, name: state.withLock { $0.windowTitle }, window: id)
        }
    }

    /// Connects, finds the target and starts capturing. Throws when the display
    /// cannot be opened or the monitor or window does not exist.
    public func start(_ output: CaptureOutput) throws(CaptureError) {
        let capture = try X11Capture(display: display, target: target, clock: output.clock) { note in
            let isNew = state.withLock { $0.notes.insert(note).inserted }
            if isNew { log(note) }
        }
        state.withLock {
            $0.capture = capture
            $0.frameSize = capture.frameSize
            $0.windowTitle = capture.windowTitle
        }
        ticker.start(on: output.clock) { [self] frame in
            capture.tick(frame, output: output) { size in state.withLock { $0.frameSize = size } }
        }
        capture.watch { [ticker] in ticker.wake() }
    }

    /// Stops the capture threads and closes the connection.
    public func stop() {
        ticker.stop()
        let capture = state.withLock { s -> X11Capture? in defer { s.capture = nil }; return s.capture }
        capture?.stop()
    }
}
