import Foundation
import Capture
import CapturePipeWire
import TestSupport

/// A `pipewire` daemon of the test's own: its own runtime directory (mode
/// 700), no session bus, no session manager. Stopped and removed by `stop`.
final class TestPipeWireDaemon {
    /// The daemon usually makes its socket within 100 ms; a busy builder may need more.
    private static let startupLimit: TimeInterval = 5
    let runtimeDirectory: URL
    private let process = Process()

    init() throws {
        runtimeDirectory = URL(fileURLWithPath: "/tmp/pw-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: runtimeDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["PIPEWIRE_RUNTIME_DIR"] = nil
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pipewire")
        process.environment = environment
        guard try startDaemon(process, socket: socketPath, within: Self.startupLimit) else {
            stop()
            throw TestFailure("pipewire did not make its socket at \(socketPath)")
        }
    }

    var socketPath: String { runtimeDirectory.appendingPathComponent("pipewire-0").path }

    /// A fresh connection to the daemon, as the portal would hand out.
    func connect() throws -> Int32 {
        try PipeWireRemote.connectSocket(path: socketPath)
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: runtimeDirectory)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
