import Foundation

/// A small command-line reader: `--name value` and `--flag`, with errors that
/// say which option was wrong and why. It reads the options a command's help
/// lists, and no other: `--help` (or `-h`) anywhere prints that help instead.
public struct ArgumentParser {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
        /// The person asked for the help, which `description` holds: print it and succeed.
        public let isHelp: Bool
        public init(_ description: String) {
            self.description = description
            isHelp = false
        }

        init(help: CommandHelp) {
            description = help.text
            isHelp = true
        }
    }

    private let help: CommandHelp
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    private var consumed: Set<String> = []
    public private(set) var positional: [String] = []

    public init(_ arguments: [String], help: CommandHelp) throws(Failure) {
        self.help = help
        if arguments.contains("--help") || arguments.contains("-h") { throw Failure(help: help) }
        let flagNames = help.flagNames
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a.hasPrefix("--") {
                var name = String(a.dropFirst(2))
                var inline: String?
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                guard help.declares(name) else { throw Failure("unknown option --\(name) (--help lists the options)") }
                if flagNames.contains(name) {
                    flags.insert(name)
                } else if let inline {
                    values[name] = inline
                } else {
                    guard i + 1 < arguments.count else { throw Failure("--\(name) needs a value") }
                    values[name] = arguments[i + 1]
                    i += 1
                }
            } else {
                positional.append(a)
            }
            i += 1
        }
    }

    public mutating func flag(_ name: String) -> Bool {
        precondition(help.declares(name), "--\(name) is read but not in the command's help")
        consumed.insert(name)
        return flags.contains(name)
    }

    public mutating func string(_ name: String) -> String? {
        precondition(help.declares(name), "--\(name) is read but not in the command's help")
        consumed.insert(name)
        return values[name]
    }

    public mutating func int(_ name: String, in range: ClosedRange<Int>) throws(Failure) -> Int? {
        guard let text = string(name) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw Failure("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return v
    }

    /// The longest time an option may give: a week. Longer is a slip of the
    /// finger, and infinity or NaN cannot be waited for.
    public static let maxSeconds: Double = 7 * 86_400

    /// Seconds, from 0 up to `limit`.
    public mutating func seconds(_ name: String, limit: Double = ArgumentParser.maxSeconds) throws(Failure) -> Double? {
        guard let text = string(name) else { return nil }
        guard let v = Double(text), v.isFinite, (0...limit).contains(v) else {
            throw Failure("--\(name) must be a number of seconds from 0 to \(Int(limit)), not \"\(text)\"")
        }
        return v
    }

    /// The most a cap may be: 100 Mbit/s is more than any screen share needs (docs/behaviour.md §7.7).
    public static let bitrateRange = 50_000...100_000_000

    /// Parses "4M", "1500k" or "2500000" as bits a second, within `bitrateRange`.
    public mutating func bitrate(_ name: String) throws(Failure) -> Int? {
        guard let text = string(name) else { return nil }
        guard let v = ArgumentParser.parseBitrate(text), ArgumentParser.bitrateRange.contains(v) else {
            throw Failure("--\(name) must be a bitrate from 50k to 100M, like 4M or 1500k, not \"\(text)\"")
        }
        return v
    }

    /// Nil for anything that is not a positive, finite number of bits a second that fits an `Int`.
    public static func parseBitrate(_ text: String) -> Int? {
        let lower = text.lowercased()
        let multiplier: Double
        var number = Substring(lower)
        if lower.hasSuffix("m") { multiplier = 1_000_000; number = number.dropLast() }
        else if lower.hasSuffix("k") { multiplier = 1_000; number = number.dropLast() }
        else { multiplier = 1 }
        guard let v = Double(number), v > 0 else { return nil }
        return Int(exactly: (v * multiplier).rounded(.down))
    }

    /// Parses "1920x1080" (or with ×).
    public mutating func size(_ name: String) throws(Failure) -> (width: Int, height: Int)? {
        guard let text = string(name) else { return nil }
        let parts = text.replacingOccurrences(of: "×", with: "x").split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (16...8192).contains(w), (16...8192).contains(h) else {
            throw Failure("--\(name) must be WIDTHxHEIGHT, like 1920x1080, not \"\(text)\"")
        }
        return (w, h)
    }

    /// Fails on any option the command did not ask about.
    public func rejectUnknown() throws(Failure) {
        let unknown = Set(values.keys).union(flags).subtracting(consumed)
        if let name = unknown.sorted().first {
            throw Failure("unknown option --\(name) (--help lists the options)")
        }
    }
}
