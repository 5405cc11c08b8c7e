import Foundation

/// A private Xvfb for an end-to-end test (CaptureX11Tests has its own, which a
/// test target cannot share): displays 90–99, searched from the top so as to
/// keep clear of CaptureX11Tests, which takes the lowest free one from 80 up.
final class TestXvfb: @unchecked Sendable {
    // Safety: a test owns its server and drives it from one thread.
    let number: Int
    private let process: Process

    var display: String { ":\(number)" }

    init(width: Int = 1920, height: Int = 1080) throws {
        for candidate in (90...99).reversed() where TestXvfb.isFree(candidate) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            // Without -noreset the root goes black when the last client leaves.
            process.arguments = [":\(candidate)", "-screen", "0", "\(width)x\(height)x24", "-noreset", "-nolisten", "tcp"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if TestXvfb.waitUntilServing(candidate, process) {
                number = candidate
                self.process = process
                return
            }
            TestXvfb.kill(process, candidate)
        }
        throw TestXvfbError.noFreeDisplay
    }

    /// Runs an X client against this server (xsetroot, xdotool) and waits for it.
    @discardableResult
    func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        process.environment = ["DISPLAY": display]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { TestXvfb.kill(process, number) }

    /// Xvfb inherits the test runner's blocked SIGTERM and SIGINT, so only
    /// SIGKILL stops it, and its socket and lock file are left for us to remove.
    private static func kill(_ process: Process, _ number: Int) {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
        }
    }

    /// The socket appears before the server answers; xdpyinfo succeeding is the real sign.
    private static func waitUntilServing(_ number: Int, _ process: Process) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, process.isRunning {
            if FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
                let probe = Process()
                probe.executableURL = URL(fileURLWithPath: "/usr/bin/xdpyinfo")
                probe.arguments = ["-display", ":\(number)"]
                probe.standardOutput = FileHandle.nullDevice
                probe.standardError = FileHandle.nullDevice
                if (try? probe.run()) != nil {
                    probe.waitUntilExit()
                    if probe.terminationStatus == 0 { return true }
                }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    private static func isFree(_ number: Int) -> Bool {
        !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            && !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
    }
}

enum TestXvfbError: Error {
    case noFreeDisplay
}
