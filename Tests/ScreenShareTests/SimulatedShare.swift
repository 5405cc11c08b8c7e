import Congestion
import Foundation
import Encoding
import Events
import Media
import RTP
import SRTP
@testable import Sending
import Synchronization
import Synthetic
import Transport
import ControlProtocol
@testable import ScreenShare

/// The real sender — synthetic capture, encode thread, pacer and send
/// thread, the heartbeat ticking the real `ShareRecovery` — on a
/// `ManualClock`, sending to a socket nobody reads, or through a
/// `SimulatedPeer` (a link model and a receiver's feedback on the same
/// clock), so a timeline of tens of seconds runs in the real time its
/// encoding takes.
final class SimulatedShare: @unchecked Sendable {
    // Safety: `lines` is behind a Mutex; the rest is set up before the threads start.
    let clock = ManualClock(.seconds(100))
    let session: ShareSession
    let recovery: ShareRecovery
    let connection: SenderConnection
    private let heartbeat: ShareHeartbeat
    private let sink: UDPSocket?
    private let viewerSinks = Mutex<[UDPSocket]>([])
    let peer: SimulatedPeer?
    private final class Lines: Sendable {
        let written = Mutex<[(at: Instant, text: String)]>([])
    }
    private let lines = Lines()
    private let done = DispatchSemaphore(value: 0)
    let started: Instant

    /// - Parameters:
    ///   - captureStallsAfterFrame: the capture's first run delivers nothing from that frame on.
    ///   - link: the bottleneck a `SimulatedPeer` puts the packets through; nil sends them to a socket nobody reads.
    ///   - feedback: what the peer sends back.
    ///   - transportWide: the receiver negotiated the transport-wide sequence number (under the peer's id).
    ///   - retransmission: the receiver negotiated RTX.
    init(
        scenario: SyntheticScreen.Scenario, fault: EncoderFault? = nil, captureStallsAfterFrame: UInt64? = nil,
        receiverID: String = "vicky", width: Int = 320, height: Int = 180,
        policy: SendPolicy = .balanced, link: SimulatedLink? = nil, feedback: SimulatedPeer.Feedback = .none,
        transportWide: Bool = false, key: SRTPKey? = nil, cap: Int = 4_000_000,
        retransmission: ReceiverConfig.Retransmission? = nil
    ) throws {
        let clock = self.clock
        let lines = self.lines
        let output = EventOutput(format: .human, level: .info) { text, _ in
            lines.written.withLock { $0.append((clock.now, text)) }
        }
        let destination: SocketAddress
        if let link {
            let peer = try SimulatedPeer(clock: clock, link: link, feedback: feedback, key: key)
            self.peer = peer
            sink = nil
            destination = peer.address
        } else {
            let sink = try UDPSocket(bindingTo: SocketAddress(host: "127.0.0.1", port: 0))
            self.sink = sink
            peer = nil
            destination = sink.localAddress
        }
        session = ShareSession(source: SyntheticSource(width: width, height: height, fps: 30, scenario: scenario,
                                                       stallAfterFrame: captureStallsAfterFrame),
                               parameters: ShareParameters(policy: policy, fps: 30), clock: clock, output: output)
        recovery = ShareRecovery(session: session, clock: clock, output: output)
        heartbeat = ShareHeartbeat(clock: clock)
        started = clock.now
        try session.start()
        let extensions = HeaderExtensionMap(
            absoluteSendTimeID: AbsoluteSendTime.extensionID,
            transportSequenceNumber: transportWide ? TransportSequenceNumber(extensionID: SimulatedPeer.transportWideID) : nil)!
        var config = ReceiverConfig(id: receiverID, displayName: "Vicky", destination: destination, srtp: key, bitrateCap: cap,
                                    headerExtensions: extensions)
        config.retransmission = retransmission
        connection = try session.addReceiver(config, fault: fault)
        let connection = self.connection
        peer?.start { bytes, count in connection.handleDatagram(&bytes, count: count, from: destination) }
        recovery.attach(connection)
        let (heartbeat, recovery, done, session) = (self.heartbeat, self.recovery, self.done, self.session)
        Thread {
            heartbeat.run(recovery: { recovery.tick(); session.lookAfterResources() }) { _ in true }
            done.signal()
        }.start()
    }

    /// Simulated seconds since the share started.
    var elapsed: Double { (clock.now - started).inSeconds }

    func run(for duration: Duration) {
        clock.run(for: duration)
    }

    /// Runs until `seconds` since the start, doing `each` after every simulated second.
    func run(until seconds: Double, each: (Double) -> Void = { _ in }) {
        while elapsed < seconds - 1e-9 {
            clock.run(for: .milliseconds(Int64(min(1, seconds - elapsed) * 1000)))
            each(elapsed)
        }
    }

    /// Another receiver of the same share, plain RTP to a socket nobody reads, its recovery attached as the first's.
    func addViewer(_ id: String) throws -> SenderConnection {
        let sink = try UDPSocket(bindingTo: SocketAddress(host: "127.0.0.1", port: 0))
        viewerSinks.withLock { $0.append(sink) }
        let viewer = try session.addReceiver(ReceiverConfig(id: id, displayName: id, destination: sink.localAddress, srtp: nil,
                                                            bitrateCap: connection.config.bitrateCap, acceptPlainRTCP: true))
        recovery.attach(viewer)
        return viewer
    }

    /// An RTCP datagram from the receiver's side, as the feedback thread would read it;
    /// protected by `protector` when the share has a key.
    func receive(_ packet: RTCPPacket, protector: SRTPSession? = nil, to target: SenderConnection? = nil) {
        let connection = target ?? self.connection
        var bytes: [UInt8] = []
        try! packet.marshal(into: &bytes)
        var count = bytes.count
        if let protector {
            bytes += [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
            count = try! protector.protectRTCP(&bytes, length: count)
        }
        connection.handleDatagram(&bytes, count: count, from: connection.config.destination)
    }

    /// Runs in 10 ms steps until the share has made more than `count` keyframes, for at most
    /// `limit`; returns how long it ran.
    func runUntilKeyframe(past count: Int, within limit: Duration) -> Duration {
        var ran = Duration.zero
        while connection.keyframesMade == count && ran < limit {
            run(for: .milliseconds(10))
            ran += .milliseconds(10)
        }
        return ran
    }

    /// Runs `duration` in steps of `step`, noting the status after each.
    func sample(for duration: Duration, every step: Duration = .milliseconds(100)) -> [(at: Double, status: ShareStatus)] {
        var samples: [(at: Double, status: ShareStatus)] = []
        let end = clock.now + duration
        while clock.now < end {
            clock.run(for: step)
            samples.append((elapsed, connection.status(capturedFPS: 30, watchdog: "watching")))
        }
        return samples
    }

    /// When each line containing `text` was written, in seconds since the start.
    func times(of text: String) -> [Double] {
        lines.written.withLock { $0.filter { $0.text.contains(text) }.map { ($0.at - started).inSeconds } }
    }

    func stop() {
        heartbeat.stop()
        done.wait()
        session.stop()
        peer?.stop()
        sink?.close()
        viewerSinks.withLock { $0.forEach { $0.close() } }
    }
}
