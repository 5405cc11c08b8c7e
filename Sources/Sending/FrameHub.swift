import Capture
import Foundation
import Media

/// Takes each capture and hands it to every layer; keeps the latest frame
/// held for the still-frame repeat and for keyframes on a still screen.
package final class FrameHub: CaptureSink, @unchecked Sendable {
    // Safety: guarded by `lock`.
    private let lock = NSLock()
    private let pool: SurfacePool
    private let clock: any MonotonicClock
    private var latest: Surface?
    private var layers: EncoderLayers?
    private var captured = RateMeter()
    private var onActivity: @Sendable (Bool) -> Void = { _ in }
    private var onFailure: @Sendable (CaptureError) -> Void = { _ in }

    package init(pool: SurfacePool, clock: any MonotonicClock) {
        self.pool = pool
        self.clock = clock
    }

    /// `activity(true)` for a new frame, `activity(false)` for "alive, nothing changed".
    package func observe(activity: @escaping @Sendable (Bool) -> Void, failure: @escaping @Sendable (CaptureError) -> Void) {
        lock.withLock {
            onActivity = activity
            onFailure = failure
        }
    }

    /// Where captures go from now on.
    package func deliver(to layers: EncoderLayers) {
        lock.withLock { self.layers = layers }
    }

    package func captured(_ surface: Surface) {
        let now = clock.now
        let (layers, activity) = lock.withLock { () -> (EncoderLayers?, @Sendable (Bool) -> Void) in
            pool.hold(surface)
            if let old = latest { pool.release(old) }
            latest = surface
            captured.record(at: now)
            return (self.layers, onActivity)
        }
        layers?.offer(surface)
        activity(true)
    }

    package func captureIdle() {
        lock.withLock { onActivity }(false)
    }

    package func captureFailed(_ error: CaptureError) {
        lock.withLock { onFailure }(error)
    }

    /// The latest frame, held for the caller (who must release it), or nil before the first.
    package func holdLatest() -> Surface? {
        lock.withLock {
            guard let latest else { return nil }
            pool.hold(latest)
            return latest
        }
    }

    package func capturedFPS() -> Double {
        lock.withLock { captured.rate(at: clock.now) }
    }

    package func releaseLatest() {
        lock.withLock {
            if let latest { pool.release(latest) }
            latest = nil
        }
    }
}
