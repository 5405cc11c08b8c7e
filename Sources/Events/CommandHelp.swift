/// What a command takes, as `--help` prints it: each option with what it
/// means and its default. The argument parser reads only the options listed
/// here, so the help cannot leave one out.
public struct CommandHelp: Sendable {
    public struct Option: Sendable {
        public let name: String
        /// What follows the option (`HOST:PORT`); nil for a flag, which takes none.
        public let value: String?
        public let meaning: String
        /// What holds when the option is not given, in words ("30", "off", "required").
        public let byDefault: String

        public init(_ name: String, _ value: String?, _ meaning: String, default byDefault: String) {
            self.name = name
            self.value = value
            self.meaning = meaning
            self.byDefault = byDefault
        }
    }

    public let usage: String
    public let summary: String
    public let options: [Option]

    public init(usage: String, summary: String, options: [Option]) {
        self.usage = usage
        self.summary = summary
        self.options = options
    }

    public var flagNames: Set<String> { Set(options.filter { $0.value == nil }.map(\.name)) }

    public func declares(_ name: String) -> Bool {
        options.contains { $0.name == name }
    }

    /// usage, summary, then one option a line: `--to HOST:PORT  where RTP goes (default: required)`.
    public var text: String {
        let spelled = options.map { "--" + $0.name + ($0.value.map { " " + $0 } ?? "") }
        let width = min(40, (spelled.map(\.count).max() ?? 0) + 2)
        var lines = ["usage: " + usage, summary, "", "options:"]
        for (option, name) in zip(options, spelled) {
            let pad = String(repeating: " ", count: max(1, width - name.count))
            lines.append("  \(name)\(pad)\(option.meaning) (default: \(option.byDefault))")
        }
        lines.append("  --help" + String(repeating: " ", count: max(1, width - 6)) + "prints this and exits")
        return lines.joined(separator: "\n")
    }
}
