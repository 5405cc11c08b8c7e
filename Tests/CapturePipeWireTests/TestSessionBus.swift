import Foundation

/// A `dbus-daemon` of the test's own, listening on a socket in its own
/// directory. Its configuration names no service directories, so nothing
/// (a real xdg-desktop-portal in particular) is ever started on demand.
final class TestSessionBus {
    /// The daemon makes its socket within tens of milliseconds; a busy builder may need more.
    private static let startupLimit: TimeInterval = 5
    private let directory: URL
    private let process = Process()

    init() throws {
        directory = URL(fileURLWithPath: "/tmp/bus-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let configuration = directory.appendingPathComponent("bus.conf")
        try Data("""
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socketPath)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.utf8).write(to: configuration)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(configuration.path)", "--nofork", "--nopidfile"]
        guard try startDaemon(process, socket: socketPath, within: Self.startupLimit) else {
            stop()
            throw TestFailure("dbus-daemon did not make its socket at \(socketPath)")
        }
    }

    private var socketPath: String { directory.appendingPathComponent("bus").path }
    var address: String { "unix:path=\(socketPath)" }

    func stop() {
        if process.isRunning {
            // The test runner's blocked signals are inherited, SIGTERM among
            // them, and this daemon has nothing to save: kill it outright.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
