import Events
import Capture
import CapturePipeWire
import Dispatch
import Encoding
import Foundation
import Media
import RTP
import SRTP
import Transport
import ControlProtocol
import Sending

/// Runs `screenshare share`: builds the share, prints status once a second,
/// reads live commands from stdin, and stops cleanly on SIGINT/SIGTERM or
/// when the duration is up.
public final class ShareRunner: @unchecked Sendable {
    // Safety: set up before threads start; the heartbeat guards its own state; `endReason` is guarded by `endLock`.
    private let options: ShareOptions
    private let output: EventOutput
    private let clock = SystemClock()
    private lazy var heartbeat = ShareHeartbeat(clock: clock)
    private var signalSources: [DispatchSourceSignal] = []
    private let endLock = NSLock()
    private var endReason: String?

    public init(options: ShareOptions) {
        self.options = options
        output = EventOutput(format: options.json ? .json : .human, level: options.logLevel)
    }

    public func run() -> Int32 {
        let source: any CaptureSource
        do {
            let tokens = PortalRestoreTokenFile(path: options.restoreTokenFile ?? PortalRestoreTokenFile.defaultPath())
            source = try SourceFactory.make(options.source, fps: options.fps, captureStopsAfter: options.captureStopsAfter,
                                            restoreTokens: tokens, output: output)
        } catch {
            output.event("error", [("message", .string("\(error)"))], human: "screenshare: \(error)")
            return 2
        }
        let session = ShareSession(source: source, parameters: ShareParameters(policy: options.policy, fps: options.fps),
                                   clock: clock, output: output)
        let recovery = ShareRecovery(session: session, clock: clock, output: output) { [self] reason in end(because: reason) }
        let connection: SenderConnection
        do {
            try session.start()
            connection = try session.addReceiver(receiverConfig(), fault: options.encoderFault)
            recovery.attach(connection)
        } catch {
            session.stop()
            output.event("error", [("message", .string("\(error)"))], human: "screenshare: \(error)")
            return 1
        }
        if let path = options.sdpPath, !writeSDP(path, ssrc: connection.ssrc, retransmissionSSRC: connection.retransmissionSSRC) {
            session.stop()
            return 1
        }
        var sending: [(String, JSONValue)] = [("to", .string(options.destination.description)),
                                              ("from", .string(connection.localAddress.description)),
                                              ("ssrc", .int(Int(connection.ssrc)))]
        var said = "Sending to \(options.destination) from \(connection.localAddress), SSRC \(connection.ssrc)"
        // A receiver that takes RTX must be told its SSRC as well, as a `transceiver` event tells a call client.
        if let rtx = connection.retransmissionSSRC {
            sending.append(("rtxSsrc", .int(Int(rtx))))
            said += ", RTX SSRC \(rtx)"
        }
        output.event("sending", sending, human: said)
        let diagnostics = ShareDiagnostics(session: session, recovery: recovery)
        installSignalHandlers(diagnostics: diagnostics)
        StdinCommands(session: session, recovery: recovery, diagnostics: diagnostics, output: output) { [self] in requestStop() }.start()
        loop(session, connection, recovery)
        session.stop(reason: endLock.withLock { endReason } ?? ShareSession.stoppedOnRequest)
        return 0
    }

    /// The share cannot go on (the capture ended for good): it stops with `reason`.
    private func end(because reason: String) {
        endLock.withLock { endReason = endReason ?? reason }
        requestStop()
    }

    private func receiverConfig() -> ReceiverConfig {
        var config = ReceiverConfig(
            id: "receiver", displayName: "the receiver", destination: options.destination,
            rtcpDestination: options.rtcpDestination, bind: options.bind, srtp: options.key,
            payloadType: options.payloadType, ssrc: options.ssrc, codec: .h264(options.profileLevelID), bitrateCap: options.bitrateMax,
            acceptPlainRTCP: options.acceptPlainRTCP, levelLimit: options.level, headerExtensions: options.headerExtensions)
        config.firstSequence = options.firstSequence
        config.retransmission = options.retransmissionPayloadType.map { ReceiverConfig.Retransmission(payloadType: $0) }
        return config
    }

    private func writeSDP(_ path: String, ssrc: UInt32, retransmissionSSRC: UInt32?) -> Bool {
        let plan = EncodingPlan.make(policy: options.policy, sourceWidth: options.source.width, sourceHeight: options.source.height,
                                     fps: options.fps, bitrate: options.bitrateMax, levelLimit: options.level)
        let sdp = SessionDescription(destination: options.destination, payloadType: options.payloadType,
                                     codec: .h264(options.profileLevelID.with(level: max(plan.level, options.profileLevelID.level))),
                                     ssrc: ssrc, key: options.key, rtcpMux: options.rtcpDestination == nil,
                                     extensions: options.headerExtensions,
                                     retransmission: options.retransmissionPayloadType.flatMap { pt in retransmissionSSRC.map { (pt, $0) } })
        // docs/behaviour.md §8.3: the SDP holds the key, so it is 0600 from its creation.
        do {
            try PrivateFile.write(sdp.text, to: path)
            return true
        } catch {
            output.event("error", [("message", .string("cannot write the SDP to \(path): \(error)"))],
                         human: "screenshare: cannot write the SDP to \(path): \(error)")
            return false
        }
    }

    private func loop(_ session: ShareSession, _ connection: SenderConnection, _ recovery: ShareRecovery) {
        let started = clock.now
        heartbeat.run(recovery: { recovery.tick(); session.lookAfterResources() }) { now in
            let status = session.status(of: connection, watchdog: recovery.doing(for: connection.config.id))
            output.event("status", status.json, human: status.firstLine + "\n" + status.secondLine)
            guard let duration = options.duration, (now - started).inSeconds >= duration else { return true }
            endLock.withLock { endReason = endReason ?? "the --duration was up" }
            return false
        }
    }

    func requestStop() {
        heartbeat.stop()
    }

    /// SIGINT and SIGTERM stop the share (with RTCP BYE); SIGUSR1 prints diagnostics.
    private func installSignalHandlers(diagnostics: ShareDiagnostics) {
        for sig in [SIGINT, SIGTERM, SIGUSR1] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            let output = self.output
            source.setEventHandler { [self] in
                if sig == SIGUSR1 {
                    diagnostics.emit(to: output)
                } else {
                    requestStop()
                }
            }
            source.resume()
            signalSources.append(source)
        }
    }
}
