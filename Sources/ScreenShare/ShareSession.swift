import Events
import Capture
import Encoding
import Foundation
import Media
import ControlProtocol
import Sending

/// One share: a capture, the six-surface queue, and a connection per receiver.
public final class ShareSession: @unchecked Sendable {
    // Safety: `connections`, `parameters`, `source` and `running` are guarded by `lock`.
    public let clock: any MonotonicClock
    public let output: EventOutput
    private let lock = NSLock()
    private var source: any CaptureSource
    private var parameters: ShareParameters
    private let pool: SurfacePool
    private let hub: FrameHub
    private var running = false

    public init(source: any CaptureSource, parameters: ShareParameters, clock: any MonotonicClock, output: EventOutput) {
        self.source = source
        self.parameters = parameters
        self.clock = clock
        self.output = output
        let size = source.frameSize
        pool = SurfacePool(width: max(size.width, CaptureLimits.maxLongSide), height: max(size.height, CaptureLimits.maxLongSide))
        hub = FrameHub(pool: pool, clock: clock)
    }

    public var policy: SendPolicy { lock.withLock { parameters.policy } }
    public var sourceName: String { lock.withLock { source.name } }
    public var surfaceCounters: SurfacePool.Counters { pool.counters }
    public var capturedFPS: Double { hub.capturedFPS() }

    public func start() throws(CaptureError) {
        let source = lock.withLock { self.source }
        try source.start(CaptureOutput(pool: pool, clock: clock, sink: hub))
        lock.withLock { running = true }
        output.event("share", [("state", .string("on")), ("source", .string(source.name)),
                               ("policy", .string(parameters.policy.rawValue))],
                     human: "Sharing \(source.name) (\(parameters.policy.displayName))")
    }

    @discardableResult
    public func addReceiver(_ config: ReceiverConfig, fault: EncoderFault? = nil) throws -> SenderConnection {
        let hub = self.hub
        let connection = try SenderConnection(
            config: config, share: lock.withLock { parameters }, clock: clock, output: output,
            pool: pool, fault: fault, latestFrame: { hub.holdLatest() })
        hub.add(connection)
        connection.start()
        return connection
    }

    public func removeReceiver(_ connection: SenderConnection) {
        hub.remove(connection)
        connection.stop()
    }

    public var receivers: [SenderConnection] { hub.all }

    /// Applies a policy to the running share: the next frame is encoded by it.
    public func setPolicy(_ policy: SendPolicy) {
        lock.withLock { parameters.policy = policy }
        for c in hub.all { c.setPolicy(policy) }
        output.log(.info, "screen", "policy set to \(policy.displayName)")
    }

    /// Restarts the capture on the same content (the watchdog's step for a silent capture).
    public func restartCapture() throws(CaptureError) {
        let source = lock.withLock { self.source }
        source.stop()
        try source.start(CaptureOutput(pool: pool, clock: clock, sink: hub))
    }

    public func observeCapture(activity: @escaping @Sendable (Bool) -> Void, failure: @escaping @Sendable (CaptureError) -> Void) {
        hub.observe(activity: activity, failure: failure)
    }

    public func status(of connection: SenderConnection, watchdog: String = "watching") -> ShareStatus {
        connection.status(capturedFPS: hub.capturedFPS(), watchdog: watchdog)
    }

    /// Why a share ended when nobody gave a reason of their own.
    public static let stoppedOnRequest = "the share was stopped"

    /// Stops the capture and every connection (each sends RTCP BYE); `reason`, in plain words,
    /// goes with the `share` off event.
    public func stop(reason: String = ShareSession.stoppedOnRequest) {
        let (wasRunning, source) = lock.withLock { () -> (Bool, any CaptureSource) in
            defer { running = false }
            return (running, self.source)
        }
        guard wasRunning else { return }
        source.stop()
        for c in hub.all { removeReceiver(c) }
        hub.releaseLatest()
        output.event("share", [("state", .string("off")), ("reason", .string(reason))], human: "Share stopped: \(reason)")
    }
}
