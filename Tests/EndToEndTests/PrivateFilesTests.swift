import Foundation
import Testing

/// docs/behaviour.md §7.2 and §8.3: what holds a key is this user's alone — the key file `share` reads,
/// and the SDP it writes, which is 0600 from the system call that creates it.
@Suite(.serialized) struct PrivateFilesTests {
    @Test func sdp_isCreated0600_thenRenamedIntoPlace() throws {
        let key = try makeKeyFile()
        let folder = NSTemporaryDirectory() + "screenshare-sdp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sdp = folder + "/share.sdp"
        let trace = folder + "/trace"
        // strace records each system call on the SDP's way into being, as the kernel saw it.
        let sender = try ManagedProcess("/usr/bin/strace", [
            "-f", "-qq", "-e", "trace=open,openat,creat,rename,renameat,renameat2,chmod,fchmod,fchmodat", "-o", trace,
            ManagedProcess.binaries.appendingPathComponent("screenshare").path,
            "share", "--size", "320x180", "--to", "127.0.0.1:9", "--srtp-key-file", key.path, "--sdp", sdp, "--duration", "1", "--json",
        ])
        #expect(sender.waitForExit(timeout: 30) == 0)
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        let renames = calls.filter { $0.contains("rename") && $0.contains("\"\(sdp)\"") }
        #expect(renames.count == 1, "\(renames)")
        let temporary = try #require(renames.first.flatMap { $0.firstMatch(of: /rename[a-z0-9]*\((?:AT_FDCWD, )?"([^"]+)"/)?.1 })
        #expect(temporary != sdp && temporary.hasPrefix(folder + "/."))
        let creations = calls.filter { $0.contains("\"\(temporary)\"") && $0.contains("O_CREAT") }
        #expect(creations.count == 1 && creations[0].contains("O_EXCL") && creations[0].contains(", 0600)"), "\(creations)")
        #expect(!calls.contains { $0.contains("chmod") && ($0.contains(sdp) || $0.contains(temporary)) })
        let attributes = try FileManager.default.attributesOfItem(atPath: sdp)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOfFile: sdp, encoding: .utf8).contains("inline:\(key.base64)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["share.sdp", "trace"])
    }

    @Test func keyFileOthersMayRead_isRefusedWithTheReason() throws {
        let key = try makeKeyFile()
        defer { unlink(key.path) }
        chmod(key.path, 0o644)
        let log = NSTemporaryDirectory() + "screenshare-keymode-\(UUID().uuidString).log"
        defer { unlink(log) }
        let sender = try ManagedProcess("screenshare", ["share", "--to", "127.0.0.1:9", "--srtp-key-file", key.path, "--duration", "1"],
                                        stderrTo: log)
        #expect(sender.waitForExit(timeout: 10) == 2)
        let said = try String(contentsOfFile: log, encoding: .utf8)
        #expect(said.contains("refusing SRTP key file \(key.path): its mode 644 gives its group access"), "\(said)")
        #expect(!said.contains(key.base64))
    }
}
