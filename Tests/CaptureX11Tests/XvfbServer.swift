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
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        // Without -noreset the server resets when its last client leaves and the root goes black.
        process.arguments = [display, "-screen", "0", "\(width)x\(height)x24", "-noreset", "-nolisten", "tcp"] + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + XvfbServer.startTimeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { return false }
            // The socket appears before the server listens: a client that connects is the real sign.
            if FileManager.default.fileExists(atPath: socketPath), (try? X11DrawingClient(display: display)) != nil {
                return true
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        stop()
        throw XvfbError.didNotStart(display)
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
