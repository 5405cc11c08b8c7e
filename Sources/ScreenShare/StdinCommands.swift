import Encoding
import Events
import Foundation
import ControlProtocol
import Recovery
import RTP
import SRTP
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
                handle(line.trimmingCharacters(in: .whitespaces))
            }
        }
        thread.name = "stdin-commands"
        thread.start()
    }

    func handle(_ line: String) {
        if line.hasPrefix("{") {
            handleJSON(line)
            return
        }
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { return }
        switch (command, words.count) {
        case ("policy", 2):
            guard let policy = SendPolicy.parse(words[1]) else { return refuse("policy needs one of balanced, detail, motion") }
            session.setPolicy(policy)
        case ("keyframe", 1):
            for c in session.receivers { c.requestKeyframe(reason: "asked on stdin") }
        case ("report", 2) where words[1] == "stalled" || words[1] == "cleared":
            _ = recovery.stallReport(receiverID: StdinCommands.receiverID, words[1] == "stalled" ? .stalled : .cleared)
        case ("destination", 2):
            guard let address = try? SocketAddress(parsing: words[1]) else { return refuse("destination needs HOST:PORT") }
            for c in session.receivers { c.setDestination(address) }
            output.log(.info, "screen", "the receiver moved to \(address)")
        case ("diagnostics", 1):
            diagnostics.emit(to: output)
        case ("stop", 1):
            onStop()
        default:
            refuse("unknown command \"\(line)\": use policy, keyframe, report, destination, diagnostics or stop")
        }
    }

    private func handleJSON(_ line: String) {
        guard let value = try? JSONParser.parse(line) else { return refuse("not JSON: \(line.prefix(80))") }
        guard value["event"]?.stringValue == "report", let stalled = value["screenStalled"]?.boolValue else { return }
        let report = MediaReport(receiver: StdinCommands.receiverID, screenStalled: stalled,
                                 expired: value["expired"]?.boolValue ?? false, figures: nil)
        _ = recovery.stallReport(receiverID: StdinCommands.receiverID, SenderRecovery.Report(report))
    }

    private func refuse(_ message: String) {
        output.event("error", [("message", .string(message))], human: "screenshare: \(message)")
    }
}
