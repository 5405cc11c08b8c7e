import Foundation
import Events
import Media
import RTP
@testable import Sending
import Synchronization
import Synthetic
import SRTP
import Transport
import ControlProtocol
@testable import ScreenShare

/// The real sender — synthetic capture, encode thread, pacer and send
/// thread, the heartbeat ticking the real `ShareRecovery` — on a
/// `ManualClock`, sending plain RTP to a socket nobody reads, so a
/// timeline of tens of seconds runs in the real time its encoding takes.
final class SimulatedShare: @unchecked Sendable {
    // Safety: `lines` is behind a Mutex; the rest is set up before the threads start.
    let clock = ManualClock(.seconds(100))
    let session: ShareSession
    let recovery: ShareRecovery
    let connection: SenderConnection
    private let heartbeat: ShareHeartbeat
    private let sink: UDPSocket
    private final class Lines: Sendable {
        let written = Mutex<[(at: Instant, text: String)]>([])
    }
    private let lines = Lines()
    private let done = DispatchSemaphore(value: 0)
    let started: Instant

    /// `captureStallsAfterFrame`: the capture's first run delivers nothing from that frame on.
    init(scenario: SyntheticScreen.Scenario, fault: EncoderFault? = nil, captureStallsAfterFrame: UInt64? = nil,
         receiverID: String = "vicky", key: SRTPKey? = nil) throws {
        let clock = self.clock
        let lines = self.lines
        let output = EventOutput(format: .human, level: .info) { text, _ in
            lines.written.withLock { $0.append((clock.now, text)) }
        }
        sink = try UDPSocket(bindingTo: SocketAddress(host: "127.0.0.1", port: 0))
        session = ShareSession(source: SyntheticSource(width: 320, height: 180, fps: 30, scenario: scenario,
                                                       stallAfterFrame: captureStallsAfterFrame),
                               parameters: ShareParameters(policy: .balanced, fps: 30), clock: clock, output: output)
        recovery = ShareRecovery(session: session, clock: clock, output: output)
        heartbeat = ShareHeartbeat(clock: clock)
        started = clock.now
        try session.start()
        connection = try session.addReceiver(
            ReceiverConfig(id: receiverID, displayName: "Vicky", destination: sink.localAddress, srtp: key), fault: fault)
        recovery.attach(connection)
        let (heartbeat, recovery, done) = (self.heartbeat, self.recovery, self.done)
        Thread {
            heartbeat.run(recovery: recovery.tick) { _ in true }
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

    /// An RTCP datagram from the receiver's side, as the feedback thread would read it;
    /// protected by `protector` when the share has a key.
    func receive(_ packet: RTCPPacket, protector: SRTPSession? = nil) {
        var bytes: [UInt8] = []
        try! packet.marshal(into: &bytes)
        var count = bytes.count
        if let protector {
            bytes += [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
            count = try! protector.protectRTCP(&bytes, length: count)
        }
        connection.handleDatagram(&bytes, count: count)
    }

    /// When each line containing `text` was written, in seconds since the start.
    func times(of text: String) -> [Double] {
        lines.written.withLock { $0.filter { $0.text.contains(text) }.map { ($0.at - started).inSeconds } }
    }

    func stop() {
        heartbeat.stop()
        done.wait()
        session.stop()
        sink.close()
    }
}
