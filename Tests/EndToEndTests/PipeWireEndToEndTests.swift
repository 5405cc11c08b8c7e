import Foundation
import Testing

/// A PipeWire screen (the project's own producer node, on a daemon of the
/// test's own) through screenshare to screen-receiver.
@Suite(.serialized) struct PipeWireEndToEndTests {
    /// A PipeWire daemon of the test's own with the project's producer on it.
    private struct Daemon {
        let runtime: String
        let environment: [String: String]
        let daemon: ManagedProcess
        let producer: ManagedProcess
        let node: UInt32

        init() throws {
            let dir = NSTemporaryDirectory() + "pw-e2e-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let variables = ["XDG_RUNTIME_DIR": dir, "DBUS_SESSION_BUS_ADDRESS": "", "PIPEWIRE_RUNTIME_DIR": dir]
            let pipewire = try ManagedProcess("/usr/bin/pipewire", [], environment: variables)
            #expect(pipewire.waitFor(timeout: 5) { _ in FileManager.default.fileExists(atPath: dir + "/pipewire-0") })
            let made = try ManagedProcess("pipewire-test-producer", ["--width", "640", "--height", "360", "--rate", "30"], environment: variables)
            #expect(made.waitFor(timeout: 5) { !$0.lines.isEmpty })
            let id = made.lines.first.flatMap { UInt32($0.trimmingCharacters(in: .whitespaces)) }
            (runtime, environment, daemon, producer) = (dir, variables, pipewire, made)
            node = try #require(id)
        }

        func share(to address: String, key: String, seconds: Int) throws -> ManagedProcess {
            try ManagedProcess("screenshare", ["share", "--source", "pipewire:\(node)", "--pipewire-link", "--to", address,
                                               "--srtp-key-file", key, "--duration", "\(seconds)", "--json"], environment: environment)
        }

        func stop() {
            producer.kill()
            daemon.kill()
            try? FileManager.default.removeItem(atPath: runtime)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pipewire"), "needs the pipewire daemon"))
    func pipeWireNodeIsSharedAndDecoded() throws {
        let pipeWire = try Daemon()
        defer { pipeWire.stop() }
        let key = try makeKeyFile()
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: 9)
        let sender = try pipeWire.share(to: address, key: key.path, seconds: 6)
        #expect(sender.waitForExit(timeout: 15) == 0)
        receiver.send("stop")
        _ = receiver.waitForExit(timeout: 5)
        let figures = try #require(receiver.events("figures").last)
        let decoded = figures["framesDecoded"] as? Int ?? 0
        print("pipewire end to end: \(decoded) frames decoded at \(figures["width"] ?? 0)×\(figures["height"] ?? 0)")
        #expect(decoded > 60)
        #expect(figures["width"] as? Int == 640 && figures["height"] as? Int == 360)
        #expect(sender.events("share").last?["reason"] as? String == "the --duration was up")
    }

    /// The producer's node goes away: the watchdog's restarts cannot bring it back, and the share ends saying so.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pipewire"), "needs the pipewire daemon"))
    func removedNode_endsTheShareWithAReason_afterTheWatchdogsRestarts() throws {
        let pipeWire = try Daemon()
        defer { pipeWire.stop() }
        let key = try makeKeyFile()
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: 40)
        let sender = try pipeWire.share(to: address, key: key.path, seconds: 40)
        #expect(receiver.waitFor(timeout: 10) { ($0.events("figures").last?["framesDecoded"] as? Int ?? 0) > 0 })
        pipeWire.producer.kill()
        // Silent 3 s, then three restarts 3 s apart, then given up: about 12 s.
        #expect(sender.waitForExit(timeout: 25) == 0)
        receiver.send("stop")
        let reason = sender.events("share").last?["reason"] as? String ?? ""
        #expect(reason.hasPrefix("The screen capture stopped and 3 restarts did not bring it back: The PipeWire screen stream"), "\(reason)")
        #expect(sender.events("log").filter { ($0["message"] as? String)?.hasPrefix("restarting the capture") == true }.count == 3)
    }
}
