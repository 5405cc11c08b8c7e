import Foundation
import Testing

/// A PipeWire screen (the project's own producer node, on a daemon of the
/// test's own) through screenshare to screen-receiver.
@Suite(.serialized) struct PipeWireEndToEndTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pipewire"), "needs the pipewire daemon"))
    func pipeWireNodeIsSharedAndDecoded() throws {
        let runtime = NSTemporaryDirectory() + "pw-e2e-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let environment = ["XDG_RUNTIME_DIR": runtime, "DBUS_SESSION_BUS_ADDRESS": "", "PIPEWIRE_RUNTIME_DIR": runtime]
        let daemon = try ManagedProcess("/usr/bin/pipewire", [], environment: environment)
        #expect(daemon.waitFor(timeout: 5) { _ in FileManager.default.fileExists(atPath: runtime + "/pipewire-0") })
        let producer = try ManagedProcess("pipewire-test-producer", ["--width", "640", "--height", "360", "--rate", "30"], environment: environment)
        #expect(producer.waitFor(timeout: 5) { !$0.lines.isEmpty })
        let node = try #require(producer.lines.first.flatMap { UInt32($0.trimmingCharacters(in: .whitespaces)) })

        let key = try makeKeyFile()
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: 9)
        let sender = try ManagedProcess("screenshare", ["share", "--source", "pipewire:\(node)", "--pipewire-link", "--to", address,
                                                        "--srtp-key-file", key.path, "--duration", "6", "--json"], environment: environment)
        #expect(sender.waitForExit(timeout: 15) == 0)
        receiver.send("stop")
        _ = receiver.waitForExit(timeout: 5)
        producer.kill()
        daemon.kill()
        let figures = try #require(receiver.events("figures").last)
        let decoded = figures["framesDecoded"] as? Int ?? 0
        print("pipewire end to end: \(decoded) frames decoded at \(figures["width"] ?? 0)×\(figures["height"] ?? 0)")
        #expect(decoded > 60)
        #expect(figures["width"] as? Int == 640 && figures["height"] as? Int == 360)
    }
}
