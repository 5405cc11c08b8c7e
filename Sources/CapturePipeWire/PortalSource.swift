import Foundation
import Synchronization
import Capture

/// A screen or window chosen through the ScreenCast portal, captured with
/// `PipeWireSource`.
///
/// The first start opens a portal session (the person may be asked in the
/// picker) and keeps it; every start, including the watchdog's restart,
/// asks that session for a fresh PipeWire connection, since a connection
/// serves one run only. `close` ends the session. When the desktop ends it
/// (the person pressed Stop in its sharing indicator), the capture fails for
/// good with the reason.
public final class PortalSource: CaptureSource {
    private struct Shared {
        var portal: ScreenCastPortal?
        var stream: PortalStream?
        var capture: PipeWireSource?
        var output: CaptureOutput?
        var ended: String?
    }

    /// How often the session bus is looked at for the desktop ending the share.
    private static let watchPeriod: TimeInterval = 0.1
    /// Long enough for libdbus to read what has arrived, short enough not to hold up a restart.
    private static let watchWait: Duration = .milliseconds(5)

    private let options: ScreenCastPortal.Options
    private let fps: Int
    private let linksItself: Bool
    private let stallLimit: Duration
    private let shared = Mutex(Shared())

    /// - Parameters:
    ///   - options: what to ask the portal for, and where the restore token lives.
    ///   - fps: the share's frame rate, capped at 30.
    ///   - linksItself: link to the node ourselves, for a PipeWire with no
    ///     session manager (tests); a desktop's session manager does it otherwise.
    ///   - stallLimit: how long the stream may sit paused before that is a failure.
    public init(_ options: ScreenCastPortal.Options, fps: Int, linksItself: Bool = false,
                stallLimit: Duration = .seconds(3)) {
        self.options = options
        self.fps = fps
        self.linksItself = linksItself
        self.stallLimit = stallLimit
    }

    /// "portal monitor (node 42)"; before the first start, "portal monitor".
    public var name: String {
        let stream = shared.withLock { $0.stream }
        let kind = stream?.sourceType ?? options.sourceTypes
        return stream.map { "portal \(kind) (node \($0.nodeID))" } ?? "portal \(kind)"
    }

    /// A monitor or window as the portal said, with its node once started; no names: the portal gives none.
    public var subject: CaptureSubject {
        let stream = shared.withLock { $0.stream }
        let kind = stream?.sourceType ?? options.sourceTypes
        let shows: CaptureSubject.Kind = kind.contains(.window) ? .window : kind.contains(.monitor) ? .monitor : .screen
        return CaptureSubject(shows, node: stream?.nodeID)
    }

    /// The captured size once negotiated, else the size the portal announced, capped.
    public var frameSize: (width: Int, height: Int) {
        let (capture, size) = shared.withLock { ($0.capture, $0.stream?.size) }
        if let negotiated = capture?.negotiatedSize { return negotiated }
        return size.map { CaptureLimits.capped(width: $0.width, height: $0.height) } ?? (1920, 1080)
    }

    public func start(_ output: CaptureOutput) throws(CaptureError) {
        let capture = try shared.withLock { state throws(CaptureError) -> PipeWireSource in
            if let ended = state.ended { throw CaptureError(.permanent, ended) }
            state.output = output
            if let capture = state.capture { return capture }
            let portal = try ScreenCastPortal(options)
            try portal.createSession()
            try portal.selectSources()
            let stream = try portal.start()[0]
            let capture = PipeWireSource(fps: fps, linksItself: linksItself, stallLimit: stallLimit,
                                         remote: { [weak self] () throws(CaptureError) -> Int32? in
                                             guard let self else {
                                                 throw CaptureError(.permanent, "The portal capture was closed")
                                             }
                                             return try self.freshRemote()
                                         },
                                         node: { stream.nodeID })
            state = Shared(portal: portal, stream: stream, capture: capture, output: output)
            Thread.detachNewThread { [weak self] in
                while self?.watchSession() == true { Thread.sleep(forTimeInterval: Self.watchPeriod) }
            }
            return capture
        }
        // Outside the lock: starting asks `freshRemote`, which takes it.
        try capture.start(output)
    }

    /// Looks once for the desktop ending the session; false once there is no session to watch.
    private func watchSession() -> Bool {
        let (watching, ended) = shared.withLock { state -> (Bool, (String, CaptureOutput?)?) in
            guard state.ended == nil, let portal = state.portal else { return (false, nil) }
            guard let reason = portal.endedByDesktop(waitingUpTo: Self.watchWait) else { return (true, nil) }
            state.ended = reason
            return (false, (reason, state.output))
        }
        if let (reason, output) = ended {
            // The stream has lost its node too; a restart would only fail the same way.
            output?.fail(CaptureError(.permanent, reason))
        }
        return watching
    }

    public func stop() {
        shared.withLock { $0.capture }?.stop()
    }

    /// Stops the capture and ends the portal session; the next start opens a new one.
    public func close() {
        stop()
        let portal = shared.withLock { state -> ScreenCastPortal? in
            defer { state = Shared() }
            return state.portal
        }
        portal?.close()
    }

    private func freshRemote() throws(CaptureError) -> Int32 {
        try shared.withLock { state throws(CaptureError) -> Int32 in
            guard let portal = state.portal else {
                throw CaptureError(.permanent, "The screen-share portal session was closed; start the share again")
            }
            return try portal.openPipeWireRemote()
        }
    }
}
