import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program of the project's, run for a test: its stdout lines collected,
/// its stdin writable, killed if the test ends first.
final class ManagedProcess: @unchecked Sendable {
    // Safety: `process` and the pipes are set up in init; `lines` is in a Mutex.
    let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    private let buffer = LineBuffer()

    /// The directory holding the built executables (beside the test bundle).
    static let binaries: URL = {
        if let dir = ProcessInfo.processInfo.environment["SCREENSHARE_BIN"] { return URL(fileURLWithPath: dir) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }()

    /// Runs one of the project's programs by name, or any program by absolute path; with
    /// `namespace`, inside that network namespace (`ip netns exec`, which becomes the program).
    /// With `readsOutput` false nothing reads its stdout, as a client that has stopped reading.
    init(_ name: String, _ arguments: [String], stderrTo log: String? = nil, environment: [String: String] = [:],
         namespace: String? = nil, readsOutput: Bool = true) throws {
        let program = name.hasPrefix("/") ? URL(fileURLWithPath: name) : ManagedProcess.binaries.appendingPathComponent(name)
        if let namespace {
            process.executableURL = URL(fileURLWithPath: LinkNamespace.ip)
            process.arguments = ["netns", "exec", namespace, program.path] + arguments
        } else {
            process.executableURL = program
            process.arguments = arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = stdin
        process.standardOutput = stdout
        if let log {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        if readsOutput {
            stdout.fileHandleForReading.readabilityHandler = { [buffer] handle in
                let data = handle.availableData
                guard !data.isEmpty else { return }
                buffer.append(String(decoding: data, as: UTF8.self))
            }
        }
        try process.run()
    }

    var lines: [String] { buffer.lines }

    /// JSON objects printed with `"event": kind`.
    func events(_ kind: String) -> [[String: Any]] {
        lines.compactMap { line in
            guard let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  object["event"] as? String == kind else { return nil }
            return object
        }
    }

    func send(_ line: String) {
        try? stdin.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// The `reply` or `error` a `serve` printed for command `id`, waited for up to `timeout`.
    func answer(id: Int, timeout: TimeInterval = 10) -> [String: Any]? {
        var found: [String: Any]?
        waitFor(timeout: timeout) { p in
            found = p.lines.lazy.compactMap { line -> [String: Any]? in
                guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      o["id"] as? Int == id, ["reply", "error"].contains(o["event"] as? String) else { return nil }
                return o
            }.first
            return found != nil
        }
        return found
    }

    /// Waits until `condition` holds on the collected lines, or `timeout` passes.
    @discardableResult
    func waitFor(timeout: TimeInterval, _ condition: (ManagedProcess) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if condition(self) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition(self)
    }

    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { return nil }
        Thread.sleep(forTimeInterval: 0.1)
        return process.terminationStatus
    }

    /// SIGINT: the project's programs stop cleanly on it (RTCP BYE).
    func interrupt() {
        if process.isRunning { process.interrupt() }
    }

    /// SIGKILL, for programs of others: the test runner's children inherit
    /// its blocked SIGINT and SIGTERM, which pipewire and gst-launch keep.
    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        kill()
    }
}

/// Output split into lines as it arrives.
final class LineBuffer: @unchecked Sendable {
    // Safety: both fields are guarded by `lock`.
    private let lock = NSLock()
    private var partial = ""
    private var complete: [String] = []

    func append(_ text: String) {
        lock.withLock {
            partial += text
            while let newline = partial.firstIndex(of: "\n") {
                complete.append(String(partial[..<newline]))
                partial = String(partial[partial.index(after: newline)...])
            }
        }
    }

    var lines: [String] { lock.withLock { complete } }
}

/// A fresh SRTP master key and salt in a file, as `--srtp-key-file` takes it: readable by this user alone.
func makeKeyFile(bytes: Int = 30) throws -> (path: String, base64: String) {
    var key = [UInt8](repeating: 0, count: bytes)
    for i in key.indices { key[i] = UInt8.random(in: 0...255) }
    let base64 = Data(key).base64EncodedString()
    let path = NSTemporaryDirectory() + "screenshare-key-\(UUID().uuidString)"
    guard FileManager.default.createFile(atPath: path, contents: Data((base64 + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
        throw CocoaError(.fileWriteUnknown)
    }
    return (path, base64)
}

extension ManagedProcess {
    struct NotListening: Error, CustomStringConvertible {
        var description: String { "screen-receiver did not say where it listens" }
    }

    /// Starts `screen-receiver --json` and waits for the address it listens on.
    static func receiver(key: String, listen: String = "127.0.0.1:0", seconds: Int, _ extra: [String] = [],
                         namespace: String? = nil) throws -> (ManagedProcess, String) {
        let r = try ManagedProcess("screen-receiver", ["--listen", listen, "--srtp-key-file", key, "--json", "--duration", "\(seconds)"] + extra,
                                   namespace: namespace)
        guard r.waitFor(timeout: 5, { !$0.events("listening").isEmpty }),
              let address = r.events("listening").first?["address"] as? String else { throw NotListening() }
        return (r, address)
    }
}
