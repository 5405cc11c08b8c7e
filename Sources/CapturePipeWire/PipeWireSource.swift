import Synchronization
import Media
import Capture

/// A screen (or window) from PipeWire: a `pw_stream` consumer of a node,
/// normally one the ScreenCast portal gave us (`PortalSource`), or a node id.
///
/// Frames arrive in shared memory as BGRx, BGRA, RGBx or RGBA. The newest
/// is copied (and converted to BGRx) into a surface as soon as the share's
/// frame rate allows — a buffer that comes within a frame period of the last
/// capture waits for the end of that period, and a newer one replaces it —
/// and its buffer is given back at once. Size changes are followed without
/// ending the share. See `PipeWireStreamHealth` for how a still screen is
/// told from a stall.
public final class PipeWireSource: CaptureSource, @unchecked Sendable {
    // Safety: `run` and `lastSize` are guarded by `state`'s mutex; everything
    // else is immutable.
    private struct Run {
        var consumer: PipeWireConsumer
        var ticker: FrameTicker
    }

    private let node: @Sendable () -> UInt32?
    private let remote: @Sendable () throws(CaptureError) -> Int32?
    private let fps: Int
    private let linksItself: Bool
    private let stallLimit: Duration
    private let state = Mutex<(run: Run?, lastSize: (width: Int, height: Int)?)>((nil, nil))

    /// - Parameters:
    ///   - nodeID: the PipeWire node to capture; nil lets the session manager choose.
    ///   - remoteFD: a connection to PipeWire (the portal's), taken over by the
    ///     source; nil connects to this user's daemon. It serves one run only:
    ///     a restart needs a fresh one, so use the other initializer to restart.
    ///   - fps: the share's frame rate, capped at 30.
    ///   - linksItself: link to the node through the daemon's link factory,
    ///     for a PipeWire with no session manager (tests, bare systems).
    ///   - stallLimit: how long the stream may sit paused before that is a failure.
    public convenience init(nodeID: UInt32?, remoteFD: Int32? = nil, fps: Int,
                            linksItself: Bool = false, stallLimit: Duration = .seconds(3)) {
        let handedOver = Mutex<Int32?>(remoteFD)
        let remote: @Sendable () throws(CaptureError) -> Int32? = { () throws(CaptureError) -> Int32? in
            guard remoteFD != nil else { return nil }
            guard let fd = handedOver.withLock({ fd in defer { fd = nil }; return fd }) else {
                throw CaptureError(.temporary, "The PipeWire connection handed to the capture was used up; restart the share to get a new one")
            }
            return fd
        }
        self.init(fps: fps, linksItself: linksItself, stallLimit: stallLimit, remote: remote) { nodeID }
    }

    /// `remote` gives a fresh PipeWire connection (taken over; nil for this
    /// user's daemon) and `node` the node to capture, both asked at every
    /// start, since a restarted producer has a new node id.
    public init(fps: Int, linksItself: Bool = false, stallLimit: Duration = .seconds(3),
                remote: @escaping @Sendable () throws(CaptureError) -> Int32?,
                node: @escaping @Sendable () -> UInt32?) {
        self.node = node
        self.remote = remote
        self.fps = min(max(1, fps), CaptureLimits.maxFPS)
        self.linksItself = linksItself
        self.stallLimit = stallLimit
    }

    public var name: String {
        node().map { "PipeWire node \($0)" } ?? "PipeWire"
    }

    public var subject: CaptureSubject { CaptureSubject(.node, node: node()) }

    /// The negotiated size once known (capped), else the 1080p most screens have.
    public var frameSize: (width: Int, height: Int) {
        negotiatedSize ?? (1920, 1080)
    }

    /// The size the stream negotiated (capped), kept from the last run; nil before the first.
    public var negotiatedSize: (width: Int, height: Int)? {
        state.withLock { current in
            if let size = current.run?.consumer.snapshot.size { current.lastSize = size }
            return current.lastSize
        }
    }

    public var counters: PipeWireCaptureCounters {
        state.withLock { $0.run?.consumer.snapshot.counters ?? PipeWireCaptureCounters() }
    }

    public func start(_ output: CaptureOutput) throws(CaptureError) {
        stop()
        let target = node()
        if target == nil, linksItself {
            throw CaptureError(.temporary, "No PipeWire node to capture: the producer has not said which node it is")
        }
        let ticker = FrameTicker(fps: fps, name: "capture-pipewire")
        let consumer = try PipeWireConsumer(target: target, remoteFD: try remote(), fps: fps,
                                            linksItself: linksItself, stallLimit: stallLimit, output: output) {
            ticker.wake()
        }
        ticker.start(on: output.clock) { _ in
            let (verdict, delivered) = consumer.run()
            switch verdict {
            case .delivering, .silent: break
            case .idle: output.idle()
            case .fail(let message): output.fail(CaptureError(.temporary, message))
            }
            return delivered
        }
        state.withLock { $0.run = Run(consumer: consumer, ticker: ticker) }
    }

    public func stop() {
        guard let run = state.withLock({ current -> Run? in
            defer { current.run = nil }
            return current.run
        }) else { return }
        run.ticker.stop()
        run.consumer.stop()
    }
}
