import Foundation
import Synchronization

/// Where a share's events, logs and status go: readable lines on stderr, or
/// JSON lines on stdout with `--json` (what a call client or a test reads).
///
/// Nothing that carries an SRTP key is ever given to it.
public final class EventOutput: Sendable {
    public enum Format: Sendable { case human, json }

    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public var name: String { ["debug", "info", "warning", "error"][rawValue] }
        public init?(name: String) {
            guard let i = ["debug", "info", "warning", "error"].firstIndex(of: name) else { return nil }
            self.init(rawValue: i)
        }
    }

    public let format: Format
    private let minimumLevel: Mutex<Level>
    private let writer: @Sendable (String, Bool) -> Void

    /// `writer` receives each line and whether it is a status line (which
    /// a terminal shows in place rather than scrolling).
    public init(format: Format, level: Level = .info, writer: (@Sendable (String, Bool) -> Void)? = nil) {
        self.format = format
        minimumLevel = Mutex(level)
        self.writer = writer ?? EventOutput.standardWriter(format)
    }

    private static func standardWriter(_ format: Format) -> @Sendable (String, Bool) -> Void {
        let lock = Mutex(())
        return { line, _ in
            lock.withLock { _ in
                let data = Data((line + "\n").utf8)
                if format == .json {
                    FileHandle.standardOutput.write(data)
                } else {
                    FileHandle.standardError.write(data)
                }
            }
        }
    }

    public func setLevel(_ level: Level) {
        minimumLevel.withLock { $0 = level }
    }

    /// An event: `kind` names it, `fields` carry its figures.
    public func event(_ kind: String, _ fields: [(String, JSONValue)], human: String? = nil) {
        switch format {
        case .json:
            writer(JSONValue.object([("event", .string(kind))] + fields).serialized, kind == "status")
        case .human:
            writer(human ?? "\(kind): " + fields.map { "\($0.0)=\($0.1.serialized)" }.joined(separator: " "), kind == "status")
        }
    }

    /// A log line under a category (`screen` for the watchdog and ladder).
    public func log(_ level: Level, _ category: String, _ message: String) {
        guard level >= minimumLevel.withLock({ $0 }) else { return }
        event("log", [("level", .string(level.name)), ("category", .string(category)), ("message", .string(message))],
              human: "[\(category)] \(level == .info ? "" : level.name + ": ")\(message)")
    }
}
