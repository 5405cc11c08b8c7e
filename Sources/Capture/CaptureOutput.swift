import Media

/// The capture's side of the six-surface queue: finds a free surface, lets
/// the source draw into it, stamps it and hands it on.
public final class CaptureOutput: Sendable {
    public let pool: SurfacePool
    public let clock: any MonotonicClock
    public let sink: any CaptureSink

    public init(pool: SurfacePool, clock: any MonotonicClock, sink: any CaptureSink) {
        self.pool = pool
        self.clock = clock
        self.sink = sink
    }

    /// Writes one frame with `draw` (which returns false if it could not)
    /// and delivers it. Returns false when every surface was held and the
    /// frame was dropped (counted); the capture simply carries on.
    @discardableResult
    public func write(frameNumber: UInt64, width: Int, height: Int, draw: (Surface) -> Bool) -> Bool {
        let captureTime = clock.now
        guard let surface = pool.checkoutForWriting() else { return false }
        defer { pool.release(surface) }
        guard surface.resize(width: width, height: height), draw(surface) else { return false }
        pool.finishWriting(surface, captureTime: captureTime, frameNumber: frameNumber)
        sink.captured(surface)
        return true
    }

    public func idle() {
        sink.captureIdle()
    }

    public func fail(_ error: CaptureError) {
        sink.captureFailed(error)
    }
}
