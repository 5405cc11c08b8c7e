import Encoding
import Recovery
import Events
import Transport

/// One line of `share`'s standard input, read but not yet carried out: a pure
/// function of the line, so that every line can be tested (and fuzzed) alone.
enum StdinCommand: Equatable {
    case policy(SendPolicy)
    case keyframe
    /// The receiver's media report: `report stalled|cleared`, or its JSON line (whose
    /// `expired` withdraws the report: the view is not back).
    case report(SenderRecovery.Report)
    case destination(SocketAddress)
    case diagnostics
    case stop
    /// An empty line, or a JSON event other than a report: nothing to do.
    case none

    struct Refusal: Error, Equatable {
        let message: String
    }

    static func parse(_ line: String) -> Result<StdinCommand, Refusal> {
        let line = line.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("{") { return parseJSON(line) }
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { return .success(.none) }
        switch (command, words.count) {
        case ("policy", 2):
            guard let policy = SendPolicy.parse(words[1]) else { return refuse("policy needs one of balanced, detail, motion") }
            return .success(.policy(policy))
        case ("keyframe", 1):
            return .success(.keyframe)
        case ("report", 2) where words[1] == "stalled" || words[1] == "cleared":
            return .success(.report(words[1] == "stalled" ? .stalled : .cleared))
        case ("destination", 2):
            guard let address = try? SocketAddress(parsing: words[1]) else { return refuse("destination needs HOST:PORT") }
            return .success(.destination(address))
        case ("diagnostics", 1):
            return .success(.diagnostics)
        case ("stop", 1):
            return .success(.stop)
        default:
            return refuse("unknown command \"\(line.prefix(80))\": use policy, keyframe, report, destination, diagnostics or stop")
        }
    }

    /// `{"event":"report","screenStalled":true…}` exactly as `screen-receiver --json` prints it.
    private static func parseJSON(_ line: String) -> Result<StdinCommand, Refusal> {
        guard let value = try? JSONParser.parse(line) else { return refuse("not JSON: \(line.prefix(80))") }
        guard value["event"]?.stringValue == "report", let stalled = value["screenStalled"]?.boolValue else { return .success(.none) }
        if value["expired"]?.boolValue == true { return .success(.report(.withdrawn)) }
        return .success(.report(stalled ? .stalled : .cleared))
    }

    private static func refuse(_ message: String) -> Result<StdinCommand, Refusal> {
        .failure(Refusal(message: message))
    }
}
