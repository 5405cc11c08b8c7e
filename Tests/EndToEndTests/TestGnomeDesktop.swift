import Foundation

/// The headless GNOME desktop of `Tools/gnome-desktop` (mutter, the real
/// xdg-desktop-portal and its GNOME backend, PipeWire, a session bus of its
/// own), brought up for one test and ended by `stop`.
final class TestGnomeDesktop {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What the desktop needs installed; Tools/setup installs it.
    static let programs = ["/usr/bin/mutter", "/usr/libexec/xdg-desktop-portal", "/usr/libexec/xdg-desktop-portal-gnome",
                           "/usr/libexec/xdg-permission-store", "/usr/bin/foot", "/usr/bin/gdbus", "/usr/bin/pw-cli"]
    static var missing: [String] { programs.filter { !FileManager.default.isExecutableFile(atPath: $0) } }
    static var installed: Bool {
        let absent = missing
        if !absent.isEmpty { print("GNOME portal tests skipped: not installed: \(absent.joined(separator: " ")) (Tools/setup installs them)") }
        return absent.isEmpty
    }

    /// The tool beside the tests, found from this file's place in the checkout.
    private static let tool = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tools/gnome-desktop").path

    /// What a program on this desktop needs: its bus, runtime dir and display.
    let environment: [String: String]
    let directory: String
    /// A restore token the desktop knows: presented to the portal, it shares the monitor with no dialog.
    let seededToken: String
    let size: (width: Int, height: Int)

    init(width: Int = 1920, height: Int = 1080) throws {
        let (status, output, errors) = try Self.run(["start", "--size", "\(width)x\(height)"])
        guard status == 0 else { throw Failure(description: "Tools/gnome-desktop start failed (\(status)): \(errors)") }
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count)
            guard let equals = pair.firstIndex(of: "=") else { continue }
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        guard let directory = values.removeValue(forKey: "GNOME_DESKTOP_DIR"),
              let token = values.removeValue(forKey: "GNOME_DESKTOP_TOKEN") else {
            throw Failure(description: "Tools/gnome-desktop start did not print its directory and token: \(output)")
        }
        values.removeValue(forKey: "GNOME_DESKTOP_SIZE")
        self.directory = directory
        seededToken = token
        environment = values
        size = (width, height)
    }

    /// Share dialogs the GNOME backend has made: it logs this once for each, and never for a restored session.
    var dialogsShown: Int {
        let log = (try? String(contentsOfFile: directory + "/backend.log", encoding: .utf8)) ?? ""
        return log.components(separatedBy: "Failed to associate portal window").count - 1
    }

    /// Ends every screen cast from the desktop's side, as its Stop button does.
    func stopScreencasts() throws {
        let (status, _, errors) = try Self.run(["stop-screencasts", directory])
        guard status == 0 else { throw Failure(description: "Tools/gnome-desktop stop-screencasts failed: \(errors)") }
    }

    func stop() {
        _ = try? Self.run(["stop", directory])
    }

    /// The tool brings the whole desktop up within a few seconds; this is its limit on a loaded machine.
    private static let toolLimit: TimeInterval = 60

    /// Runs the tool with its output in files, and gives it a limit: a tool that hangs fails the test
    /// in words rather than stopping the whole run.
    private static func run(_ arguments: [String]) throws -> (Int32, String, String) {
        let base = NSTemporaryDirectory() + "gnome-desktop-tool-\(UUID().uuidString.prefix(8))"
        let (outPath, errPath) = (base + ".out", base + ".err")
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: toolLimit)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            throw Failure(description: "Tools/gnome-desktop \(arguments.joined(separator: " ")) did not finish within \(Int(toolLimit)) s")
        }
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (process.terminationStatus, read(outPath), read(errPath))
    }
}
