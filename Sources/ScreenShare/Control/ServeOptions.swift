import Events

/// `screenshare serve --control stdio|unix:PATH [--allow-unencrypted] [--log-level L]`.
public struct ServeOptions: Sendable {
    public enum Control: Sendable, Equatable {
        case stdio
        case unix(path: String)
    }

    public var control: Control
    /// Lets a command with `"insecure": true` send plain RTP beyond loopback.
    public var allowUnencrypted = false
    public var logLevel = EventOutput.Level.info

    public static let help = CommandHelp(
        usage: "screenshare serve --control stdio|unix:PATH [options]",
        summary: "Shares a screen for a call client, driven by JSON lines (docs/control-protocol.md).",
        options: [
            .init("control", "stdio|unix:PATH", "where the call client's commands come from: standard input, or a 0600 Unix socket",
                  default: "required"),
            .init("allow-unencrypted", nil, "let a receiver added with \"insecure\": true have plain RTP beyond loopback", default: "off"),
            .init("log-level", "debug|info|warning|error", "how much is logged, as log events", default: "info"),
        ])

    public static func parse(_ arguments: [String]) throws(ArgumentParser.Failure) -> ServeOptions {
        var a = try ArgumentParser(arguments, help: help)
        guard let control = a.string("control") else {
            throw .init("--control stdio or --control unix:PATH is required: where the call client's commands come from")
        }
        var o: ServeOptions
        if control == "stdio" {
            o = ServeOptions(control: .stdio)
        } else if control.hasPrefix("unix:"), control.count > 5 {
            o = ServeOptions(control: .unix(path: String(control.dropFirst(5))))
        } else {
            throw .init("--control must be stdio or unix:PATH, not \"\(control)\"")
        }
        o.allowUnencrypted = a.flag("allow-unencrypted")
        if let l = a.string("log-level") {
            guard let level = EventOutput.Level(name: l) else { throw .init("--log-level must be debug, info, warning or error") }
            o.logLevel = level
        }
        try a.rejectUnknown()
        guard a.positional.isEmpty else { throw .init("unexpected argument \"\(a.positional[0])\"") }
        return o
    }
}
