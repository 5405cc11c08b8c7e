import Foundation
import Synchronization
@testable import CaptureX11
import Capture

/// A private Xvfb for one test, on a free display number, stopped by `stop`.
final class XvfbServer: @unchecked Sendable {
    // Safety: each test owns its server and drives it from one task.
    /// Numbers 80–99: above what desktops and CI usually take.
    static let displayNumbers = 80...99
    /// Xvfb comes up in well under a second; on two cores under a full test run it once took over five.
    static let startTimeout: Duration = .seconds(20)
    private static let taken = Mutex(Set<Int>())

    private(set) var number = 0
    let width: Int
    let height: Int
    private let extraArguments: [String]
    private var process: Process?
    /// Xvfb's standard output, held open while it runs: it is where it said it was ready.
    private var output: Pipe?

    var display: String { ":\(number)" }

    init(width: Int = 640, height: Int = 480, extraArguments: [String] = []) async throws {
        self.width = width
        self.height = height
        self.extraArguments = extraArguments
        for candidate in XvfbServer.displayNumbers where XvfbServer.isFree(candidate) {
            guard XvfbServer.taken.withLock({ $0.insert(candidate).inserted }) else { continue }
            number = candidate
            if try await launch() { return }
        }
        throw XvfbError.noFreeDisplay
    }

    /// Starts Xvfb (again) on this display number; false if it exited at once (number in use).
    @discardableResult
    func launch() async throws -> Bool {
        let process = Process()
        let ready = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        // Without -noreset the server resets when its last client leaves and the root goes black.
        // With -displayfd it writes its display number on standard output once it accepts clients.
        process.arguments = [display, "-screen", "0", "\(width)x\(height)x24", "-noreset", "-nolisten", "tcp", "-displayfd", "1"]
            + extraArguments
        process.standardOutput = ready
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        output = ready
        let pid = process.processIdentifier
        let timeout = Task {
            try await Task.sleep(for: XvfbServer.startTimeout)
            kill(pid, SIGKILL)
        }
        let reader = ready.fileHandleForReading
        let said = await Task.detached { XvfbServer.firstLine(of: reader) }.value
        timeout.cancel()
        if said == display.dropFirst() { return true }
        // It closed its output without a word: it exited (the number is another server's), or the
        // timeout killed it. Only then are the socket and lock file its own to remove.
        process.waitUntilExit()
        guard process.terminationReason == .uncaughtSignal else { return false }
        removeFiles()
        throw XvfbError.didNotStart(display)
    }

    /// The first line written to `handle`, or nil at end of file (the writer exited without one).
    private static func firstLine(of handle: FileHandle) -> Substring? {
        var bytes = Data()
        while !bytes.contains(UInt8(ascii: "\n")) {
            let more = handle.availableData
            if more.isEmpty { return nil }
            bytes += more
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").first
    }

    func client() throws -> X11DrawingClient {
        try X11DrawingClient(display: display)
    }

    /// Runs an X tool (xdotool, xrandr) against this server and waits for it.
    func run(_ tool: String, _ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        process.environment = ["DISPLAY": display]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XvfbError.toolFailed(tool, arguments) }
    }

    /// SIGKILL, because Xvfb inherits the test runner's blocked SIGTERM and
    /// SIGINT; so it cannot remove its socket and lock file, and we do.
    func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        removeFiles()
    }

    private func removeFiles() {
        try? FileManager.default.removeItem(atPath: socketPath)
        try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
    }

    deinit {
        stop()
        XvfbServer.taken.withLock { _ = $0.remove(number) }
    }

    private var socketPath: String { "/tmp/.X11-unix/X\(number)" }

    static func isFree(_ number: Int) -> Bool {
        !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            && !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
    }
}

enum XvfbError: Error {
    case noFreeDisplay
    case didNotStart(String)
    case toolFailed(String, [String])
}
