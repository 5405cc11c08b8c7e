import Events
import Capture
import Encoding
import Foundation
import Media
import ControlProtocol
import Sending

/// One share: a capture, the six-surface queue, and a connection per receiver.
/// The source can be replaced on the running share (another window, monitor or
/// source, docs/behaviour.md §10.4): the pool, the hub and every connection stay,
/// so each receiver's stream goes on under its SSRC, with new SPS/PPS in band
/// where the size changes.
public final class ShareSession: @unchecked Sendable {
    // Safety: `parameters`, `source`, `feed`, `running` and `lastGiveBack` are guarded by `lock`;
    // `switching` serialises what starts and stops sources: a switch, a restart, the stop.
    public let clock: any MonotonicClock
    public let output: EventOutput
    private let lock = NSLock()
    private let switching = NSLock()
    private var source: any CaptureSource
    private var feed: CaptureFeed
    private var parameters: ShareParameters
    private let pool: SurfacePool
    private var lastGiveBack: Instant?
    /// How often surfaces capture has stopped using give their memory back (§2.3).
    static let giveBackInterval = Duration.seconds(10)
    private let hub: FrameHub
    private let layers: EncoderLayers
    private var running = false

    public init(source: any CaptureSource, parameters: ShareParameters, clock: any MonotonicClock, output: EventOutput) {
        self.source = source
        self.parameters = parameters
        self.clock = clock
        self.output = output
        // Every source is capped at 1920 on the long side, whichever way up: a switch never needs a bigger pool.
        pool = SurfacePool(width: CaptureLimits.maxLongSide, height: CaptureLimits.maxLongSide)
        let hub = FrameHub(pool: pool, clock: clock)
        self.hub = hub
        layers = EncoderLayers(share: parameters, clock: clock, output: output, pool: pool, latestFrame: { hub.holdLatest() })
        hub.deliver(to: layers)
        feed = CaptureFeed(into: hub)
    }

    public var policy: SendPolicy { lock.withLock { parameters.policy } }
    public var sourceName: String { lock.withLock { source.name } }
    public var currentSource: any CaptureSource { lock.withLock { source } }
    public var surfaceCounters: SurfacePool.Counters { pool.counters }
    public var capturedFPS: Double { hub.capturedFPS() }

    public func start() throws(CaptureError) {
        let (source, feed) = lock.withLock { (self.source, self.feed) }
        try source.start(CaptureOutput(pool: pool, clock: clock, sink: feed))
        lock.withLock { running = true }
        output.event("share", [("state", .string("on")), ("source", .string(source.name)),
                               ("policy", .string(parameters.policy.rawValue))],
                     human: "Sharing \(source.name) (\(parameters.policy.displayName))")
    }

    @discardableResult
    /// A receiver joins the layer its stream and estimate suit (docs/behaviour.md §12).
    public func addReceiver(_ config: ReceiverConfig, fault: EncoderFault? = nil) throws -> SenderConnection {
        let connection = try SenderConnection(config: config, clock: clock, output: output)
        layers.add(connection, fault: fault)
        connection.start()
        return connection
    }

    public func removeReceiver(_ connection: SenderConnection) {
        layers.remove(connection)
        connection.stop()
    }

    public var receivers: [SenderConnection] { layers.connections }

    /// Called on the recovery tick: moves receivers whose estimate has changed
    /// class to that class's layer, and every 10 s gives back the memory of
    /// surfaces capture has stopped using.
    public func lookAfterResources() {
        layers.rebalance()
        let now = clock.now
        let due = lock.withLock { () -> Bool in
            guard let last = lastGiveBack, now - last < ShareSession.giveBackInterval else {
                lastGiveBack = now
                return true
            }
            return false
        }
        if due { pool.giveBackIdlePages() }
    }

    /// The layers and who is on each, for diagnostics.
    public var layerLine: String { layers.diagnosticLine }

    /// Applies a policy to the running share: the next frame is encoded by it.
    public func setPolicy(_ policy: SendPolicy) {
        lock.withLock { parameters.policy = policy }
        layers.setPolicy(policy)
        output.log(.info, "screen", "policy set to \(policy.displayName)")
    }

    /// Restarts the capture on the same content (the watchdog's step for a silent capture). Skipped
    /// while another source is starting in its place: that switch stops this one anyway.
    public func restartCapture() throws(CaptureError) {
        guard switching.try() else { return }
        defer { switching.unlock() }
        let (source, feed, running) = lock.withLock { (self.source, self.feed, self.running) }
        guard running else { return }
        source.stop()
        try source.start(CaptureOutput(pool: pool, clock: clock, sink: feed))
    }

    /// Shares `replacement` instead of the current source. The current one
    /// goes on while the replacement starts (a portal may be showing its
    /// picker); if the replacement cannot start, nothing changed. Once it has
    /// started the old feed is closed and the old source stopped. Returns the
    /// source it replaced, already stopped, for the caller to let go of.
    @discardableResult
    public func switchSource(to replacement: any CaptureSource) throws(CaptureError) -> any CaptureSource {
        switching.lock()
        defer { switching.unlock() }
        let next = CaptureFeed(into: hub)
        try replacement.start(CaptureOutput(pool: pool, clock: clock, sink: next))
        let (old, oldFeed, wasRunning) = lock.withLock { () -> (any CaptureSource, CaptureFeed, Bool) in
            defer { (source, feed) = (replacement, next) }
            return (source, feed, running)
        }
        oldFeed.close()
        old.stop()
        if !wasRunning { replacement.stop() }
        output.log(.info, "screen", "now sharing \(replacement.name) instead of \(old.name)")
        return old
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
        let wasRunning = lock.withLock { () -> Bool in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        switching.withLock { currentSource.stop() }
        for c in layers.connections { removeReceiver(c) }
        hub.releaseLatest()
        output.event("share", [("state", .string("off")), ("reason", .string(reason))], human: "Share stopped: \(reason)")
    }
}
