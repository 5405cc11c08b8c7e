import ControlProtocol
import Events
import Foundation
import Media
@testable import ScreenShare
import SRTP
import Synchronization
import Testing
import Transport

/// `share`'s live commands on stdin: read as a pure function of the line, and carried out under the same
/// transport rules as `serve` (docs/behaviour.md §8.4).
struct StdinCommandTests {
    @Test func eachCommand_isRead() throws {
        #expect(try StdinCommand.parse("policy detail").get() == .policy(.detail))
        #expect(try StdinCommand.parse("  keyframe ").get() == .keyframe)
        #expect(try StdinCommand.parse("report stalled").get() == .report(.stalled))
        #expect(try StdinCommand.parse("report cleared").get() == .report(.cleared))
        #expect(try StdinCommand.parse("destination [::1]:6000").get() == .destination(try SocketAddress(parsing: "[::1]:6000")))
        #expect(try StdinCommand.parse("diagnostics").get() == .diagnostics)
        #expect(try StdinCommand.parse("stop").get() == .stop)
        #expect(try StdinCommand.parse("").get() == StdinCommand.none)
        #expect(try StdinCommand.parse(#"{"event":"report","screenStalled":true,"reason":"x"}"#).get() == .report(.stalled))
        #expect(try StdinCommand.parse(#"{"event":"report","screenStalled":true,"expired":true}"#).get() == .report(.withdrawn))
        #expect(try StdinCommand.parse(#"{"event":"figures","packets":3}"#).get() == StdinCommand.none)
    }

    @Test func badLines_areRefusedInWords() {
        for line in ["policy fast", "destination example.com:5", "destination 1.2.3.4", "report maybe", "dance", #"{"event":"#] {
            guard case .failure(let refusal) = StdinCommand.parse(line) else { Issue.record("\(line) accepted"); continue }
            #expect(!refusal.message.isEmpty)
        }
    }

    /// Plain RTP follows the receiver only to loopback; a socket bound to loopback (a loopback receiver's)
    /// cannot follow it off the host even with SRTP. Either refusal leaves the destination as it was.
    @Test func destination_offLoopback_isRefusedForPlainRTPAndLoopbackSockets() throws {
        let share = try SimulatedShare(scenario: .still)
        defer { share.stop() }
        let said = Mutex<[String]>([])
        let output = EventOutput(format: .human) { line, _ in said.withLock { $0.append(line) } }
        let commands = StdinCommands(session: share.session, recovery: share.recovery,
                                     diagnostics: ShareDiagnostics(session: share.session, recovery: share.recovery), output: output) {}
        let start = share.connection.destination
        commands.handle("destination 192.0.2.1:5004")
        #expect(share.connection.destination == start)
        #expect(said.withLock { $0 }.last?.contains("plain RTP to 192.0.2.1:5004 refused") == true)

        commands.handle("destination 127.0.0.1:6000")
        #expect(share.connection.destination.description == "127.0.0.1:6000")

        let key = try SRTPKey(profile: .aes128CmHmacSha1_80, bytes: [UInt8](repeating: 5, count: 30))
        let secure = try share.session.addReceiver(ReceiverConfig(id: "s", displayName: "S", destination: .ipv4Loopback(port: 9), srtp: key))
        defer { share.session.removeReceiver(secure) }
        #expect(secure.localAddress.isLoopback)
        commands.handle("destination 192.0.2.1:5004")
        #expect(secure.destination.description == "127.0.0.1:9" && share.connection.destination.description == "127.0.0.1:6000")
        #expect(said.withLock { $0 }.last?.contains("refused") == true)
    }
}
