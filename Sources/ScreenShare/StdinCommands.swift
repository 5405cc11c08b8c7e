import Events
import Encoding
import Foundation

/// Live commands on standard input, one a line, for a share run by hand or
/// by a script: `policy balanced|detail|motion`, `keyframe`, `stop`.
final class StdinCommands: @unchecked Sendable {
    // Safety: immutable after init; the reading thread only calls thread-safe session methods.
    private let session: ShareSession
    private let output: EventOutput
    private let onStop: @Sendable () -> Void

    init(session: ShareSession, output: EventOutput, onStop: @escaping @Sendable () -> Void) {
        self.session = session
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
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { return }
        switch command {
        case "policy":
            guard words.count == 2, let policy = SendPolicy.parse(words[1]) else {
                output.event("error", [("message", .string("policy needs one of balanced, detail, motion"))])
                return
            }
            session.setPolicy(policy)
        case "keyframe":
            for c in session.receivers { c.requestKeyframe(reason: "asked on stdin") }
        case "stop":
            onStop()
        default:
            output.event("error", [("message", .string("unknown command \"\(command)\": use policy, keyframe or stop"))])
        }
    }
}
