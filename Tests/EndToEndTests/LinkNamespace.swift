import Foundation

/// A network namespace of the test's own whose loopback is shaped by `tc tbf`, so that
/// sender and receiver talk through a real bottleneck (both directions: all loopback
/// traffic in the namespace goes through it). Needs root and iproute2; deleted on `close`.
final class LinkNamespace: Sendable {
    static let ip = "/usr/sbin/ip"
    static let tc = "/usr/sbin/tc"

    static var available: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: ip) && FileManager.default.isExecutableFile(atPath: tc)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let name: String

    /// `rate` as tc writes it (`1.5mbit`); the burst and queue are the ones the motion figures use.
    init(rate: String) throws {
        name = "screenshare-gate-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        try LinkNamespace.run(LinkNamespace.ip, ["netns", "add", name])
        do {
            try LinkNamespace.run(LinkNamespace.ip, ["-n", name, "link", "set", "lo", "up"])
            try LinkNamespace.run(LinkNamespace.tc, ["-n", name, "qdisc", "add", "dev", "lo", "root", "tbf",
                                                     "rate", rate, "burst", "16kb", "latency", "200ms"])
        } catch {
            close()
            throw error
        }
    }

    func close() {
        try? LinkNamespace.run(LinkNamespace.ip, ["netns", "del", name])
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")): \(text)")
        }
    }
}
