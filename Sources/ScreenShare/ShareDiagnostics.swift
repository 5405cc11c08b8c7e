import Events
import Foundation

/// A text dump of a share on demand: each receiver's figures, the ladder's
/// history and the encoder state. It never holds a key: it is built from
/// figures and settings only.
final class ShareDiagnostics: Sendable {
    private let session: ShareSession
    private let recovery: ShareRecovery

    init(session: ShareSession, recovery: ShareRecovery) {
        self.session = session
        self.recovery = recovery
    }

    var text: String {
        var lines = ["screenshare diagnostics", "source: \(session.sourceName), policy: \(session.policy.displayName)"]
        let pool = session.surfaceCounters
        lines.append("surfaces: \(pool.written) written, \(pool.droppedAllHeld) dropped (all held), \(pool.droppedLate) dropped late")
        lines.append(session.layerLine)
        for c in session.receivers {
            let status = session.status(of: c, watchdog: recovery.doing(for: c.config.id))
            lines.append("receiver \(c.config.id) (\(c.config.displayName)) at \(c.destination), \(c.config.srtp == nil ? "plain RTP" : "SRTP")")
            lines.append("  " + status.firstLine)
            lines.append("  " + status.secondLine)
            lines += c.diagnosticLines.map { "  " + $0 }
        }
        lines.append("recovery history:")
        lines += recovery.historyLines.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }

    func emit(to output: EventOutput) {
        let text = self.text
        output.event("diagnostics", [("text", .string(text))], human: text)
    }
}
