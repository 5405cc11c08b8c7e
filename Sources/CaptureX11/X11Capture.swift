import CXCB
import Media
import YUV
import Capture

/// One connection's worth of X11 capture: made when a share starts (or
/// restarts, which reconnects), driven tick by tick on the capture thread,
/// and woken early by its change watcher's thread.
final class X11Capture: @unchecked Sendable {
    // Safety: made by X11Source.start, then used only on its ticker's thread
    // until the ticker stops; the watcher is thread-safe.
    private let connection: X11Connection
    private let reader: X11ImageReader
    private let cursor: X11Cursor?
    private let watcher: X11ChangeWatcher
    private let window: xcb_window_t?
    /// The shared window's title when it was opened; nil for the other targets or an untitled window.
    let windowTitle: String?
    /// The shared area in root coordinates; a window's follows it each tick.
    private var area: X11Rect
    /// The first tick, a window shown again, or a frame dropped for want of a surface.
    private var mustCapture = true
    /// After a failure is reported the capture stays silent until stopped.
    private var ended = false

    init(display: String?, target: X11Target, clock: any MonotonicClock, note: (String) -> Void) throws(CaptureError) {
        let connection = try X11Connection(display: display)
        let name = connection.displayName
        switch target {
        case .screen:
            area = connection.screen
            window = nil
        case .monitor(let monitorName):
            area = try X11Monitor.named(monitorName, on: connection).rect
            window = nil
        case .region(let x, let y, let width, let height):
            area = X11Rect(x: x, y: y, width: width, height: height)
            window = nil
            guard area.intersects(connection.screen) else {
                throw CaptureError(.permanent, "The \(target.description) is not on the screen of X display \(name) (\(connection.screen.width)×\(connection.screen.height))")
            }
        case .window(let id):
            window = id
            switch X11WindowGeometry.query(id, on: connection) {
            case .shown(let rect), .hidden(let rect): area = rect
            case .closed: throw CaptureError(.permanent, "X display \(name) has no window \(X11Target.hex(id)) — was it closed?")
            }
        }
        windowTitle = window.flatMap { X11TopLevelWindows(connection: connection).title(of: $0) }
        reader = X11ImageReader(connection: connection)
        if let problem = reader.sharedMemoryProblem {
            note("X display \(name): MIT-SHM is not usable (\(problem)), so frames come through the X socket, which is slower")
        }
        cursor = X11Cursor(connection: connection)
        if cursor == nil {
            note("X display \(name) has no XFixes 4, so the cursor is not drawn into the share")
        }
        watcher = X11ChangeWatcher(connection: connection, watchCursor: cursor != nil, area: area, clock: clock)
        if !watcher.tracksDamage {
            note("X display \(name) has no DAMAGE, so every frame is captured and sent even when nothing changed")
        }
        self.connection = connection
    }

    /// Starts watching for changes; `changed` hears each one, on the watcher's thread.
    func watch(changed: @escaping @Sendable () -> Void) {
        watcher.start(changed: changed)
    }

    /// Stops the watcher's thread; call once the ticker has stopped. The connection closes with this object.
    func stop() {
        watcher.stop()
    }

    /// The size frames have now (a window's changes when it is resized).
    var frameSize: (width: Int, height: Int) { CaptureLimits.capped(width: area.width, height: area.height) }

    /// Captures a frame if anything changed within the shared area, else
    /// reports idle. Returns whether a frame was captured. `sized` is told the
    /// frame size once the window's geometry is read, before any frame of that
    /// size reaches `output`, so whoever asks the size after a frame gets its size.
    func tick(_ frame: UInt64, output: CaptureOutput, sized: ((width: Int, height: Int)) -> Void) -> Bool {
        guard !ended else { return false }
        guard !connection.isBroken else { return end(connection.lostError, output) }
        var moved = false
        var shown = true
        if let window {
            switch X11WindowGeometry.query(window, on: connection) {
            case .closed:
                return end(connection.isBroken ? connection.lostError : CaptureError(.permanent, "The shared window was closed"), output)
            case .shown(let rect):
                moved = rect != area
                area = rect
            case .hidden(let rect):
                area = rect
                shown = false
            }
        }
        sized(frameSize)
        let (damaged, cursorShapeChanged) = watcher.take(within: area)
        if cursorShapeChanged { cursor?.shapeChanged() }
        let cursorChanged = cursor?.update(within: area) ?? false
        let visible = area.intersection(connection.screen)
        guard shown, !visible.isEmpty else {
            // Shown again later, it must be captured even if nothing is damaged then.
            mustCapture = true
            output.idle()
            return false
        }
        guard mustCapture || moved || damaged || cursorChanged else {
            output.idle()
            return false
        }

        let size = frameSize
        let area = self.area
        // The whole area at its own size is read straight into the surface where the server can.
        let inPlace = visible == area && size == (area.width, area.height)
        var failure: X11ImageReader.Failure?
        let written = output.write(frameNumber: frame, width: size.width, height: size.height) { surface in
            do throws(X11ImageReader.Failure) {
                if inPlace, try reader.read(visible, into: surface) {
                    cursor?.draw(into: surface.pixels, stride: surface.stride, area: visible)
                } else {
                    let image = try reader.read(visible)
                    cursor?.draw(into: image.pixels, stride: image.stride, area: visible)
                    X11Capture.place(image, of: visible, within: area, into: surface)
                }
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { return end(readError(failure), output) }
        mustCapture = !written
        return written
    }

    private func end(_ error: CaptureError, _ output: CaptureOutput) -> Bool {
        ended = true
        output.fail(error)
        return false
    }

    private func readError(_ failure: X11ImageReader.Failure) -> CaptureError {
        if connection.isBroken { return connection.lostError }
        let name = connection.displayName
        switch failure {
        case .refused(let code):
            // Most likely the screen was resized under us: a restart measures it again.
            return CaptureError(.temporary, "X display \(name) refused to give the screen image (X error \(code)); restarting the capture may mend it")
        case .unsupportedDepth:
            return CaptureError(.permanent, "X display \(name) does not use 32-bit pixels; screenshare can only capture 24-bit colour displays")
        }
    }

    /// Copies the visible part of the shared area into the frame at its place,
    /// scaled when the area is over the size cap; what is off screen stays black.
    static func place(_ image: X11ImageReader.Image, of visible: X11Rect, within area: X11Rect, into surface: Surface) {
        let out = (width: surface.width, height: surface.height)
        if visible != area {
            surface.bytes.initializeMemory(as: UInt8.self, repeating: 0)
        }
        let scaled = max(area.width, area.height) > CaptureLimits.maxLongSide
        // Where the visible part lands, in frame pixels.
        func toFrame(_ offset: Int, _ outSide: Int, _ areaSide: Int) -> Int {
            scaled ? offset * outSide / areaSide : offset
        }
        let x = toFrame(visible.x - area.x, out.width, area.width)
        let y = toFrame(visible.y - area.y, out.height, area.height)
        // Even sides (the cap's rounding) may drop the area's last column or row.
        let width = min(out.width - x, toFrame(visible.width, out.width, area.width))
        let height = min(out.height - y, toFrame(visible.height, out.height, area.height))
        guard width > 0, height > 0 else { return }
        let destination = surface.pixels + y * surface.stride + x * 4
        if scaled {
            PixelConverter.scaleBGRx(image.pixels, stride: image.stride, width: visible.width, height: visible.height,
                                     into: destination, destinationStride: surface.stride, width: width, height: height)
        } else if image.stride == surface.stride && width == visible.width {
            destination.copyMemory(from: image.pixels, byteCount: height * image.stride)
        } else {
            for row in 0..<height {
                (destination + row * surface.stride).copyMemory(from: image.pixels + row * image.stride, byteCount: width * 4)
            }
        }
    }
}
