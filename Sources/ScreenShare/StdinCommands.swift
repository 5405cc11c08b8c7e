import ControlProtocol
import Events
import Foundation
import Recovery
import Transport

/// Live commands on standard input, one a line, for a share run by hand or
/// by whatever stands in for a call client:
///
/// - `policy balanced|detail|motion`, `keyframe`, `diagnostics`, `stop`
/// - `report stalled|cleared`: the receiver's media report
/// - `destination HOST:PORT`: the receiver moved (a relay renewed)
/// - a JSON line `{"event":"report","screenStalled":true…}` exactly as
///   `screen-receiver --json` prints it, so a stand-in client can pass its
///   reports through unchanged.
final class StdinCommands: @unchecked Sendable {
    // Safety: immutable after init; the reading thread only calls thread-safe methods.
    private let session: ShareSession
    private let recovery: ShareRecovery
    private let diagnostics: ShareDiagnostics
    private let output: EventOutput
    private let onStop: @Sendable () -> Void
    /// `share` has one receiver, named so in events.
    static let receiverID = "receiver"

    init(session: ShareSession, recovery: ShareRecovery, diagnostics: ShareDiagnostics, output: EventOutput,
         onStop: @escaping @Sendable () -> Void) {
        self.session = session
        self.recovery = recovery
        self.diagnostics = diagnostics
        self.output = output
        self.onStop = onStop
    }

    func start() {
        let thread = Thread { [self] in
            while let line = readLine() {
                handle(line)
            }
        }
        thread.name = "stdin-commands"
        thread.start()
    }

    func handle(_ line: String) {
        switch StdinCommand.parse(line) {
        case .failure(let refusal):
            refuse(refusal.message)
        case .success(.policy(let policy)):
            session.setPolicy(policy)
        case .success(.keyframe):
            for c in session.receivers { c.requestKeyframe(reason: "asked on stdin") }
        case .success(.report(let report)):
            _ = recovery.stallReport(receiverID: StdinCommands.receiverID, report)
        case .success(.destination(let address)):
            move(to: address)
        case .success(.diagnostics):
            diagnostics.emit(to: output)
        case .success(.stop):
            onStop()
        case .success(.none):
            break
        }
    }

    /// docs/behaviour.md §8.4: plain RTP follows the receiver only to loopback; `share` has no way to allow more.
    private func move(to address: SocketAddress) {
        for c in session.receivers {
            if let refused = ControlTransportRule.checkMove(c.config, boundTo: c.localAddress, to: address, mayLeaveLoopback: false) {
                return refuse("destination \(address) refused: \(refused.message)")
            }
        }
        for c in session.receivers { c.setDestination(address) }
        output.log(.info, "screen", "the receiver moved to \(address)")
    }

    private func refuse(_ message: String) {
        output.event("error", [("message", .string(message))], human: "screenshare: \(message)")
    }
}
