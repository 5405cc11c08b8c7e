import Foundation
import Testing

/// docs/behaviour.md §3.7 motion floors over a real bottleneck: `Tools/motion-bench --gate`
/// makes two network namespaces joined by a veth pair, shapes the sender's
/// side to 1.5 Mbit/s with tc tbf, and runs a share per policy into
/// `screen-receiver --quality motion`. It needs root (namespaces, tc); without
/// it the test is skipped. Balanced and Motion must arrive at 15 fps or more;
/// Text and detail must keep 1920×1080.
@Suite(.serialized) struct MotionGateTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = repository.appendingPathComponent("Tools/motion-bench").path

    static var canMakeNamespaces: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/tc")
            && FileManager.default.isExecutableFile(atPath: script)
    }

    @Test(.enabled(if: MotionGateTests.canMakeNamespaces, "needs root for network namespaces and tc"))
    func motionFloorsHoldOnAShapedLink() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", MotionGateTests.script, "--gate", "--policies", "balanced,motion,detail",
                             "--seconds", "20", "--no-ffmpeg"]
        var environment = ProcessInfo.processInfo.environment
        environment["SCREENSHARE_BIN"] = ManagedProcess.binaries.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        print(text)
        // The gated row of each policy is screen-receiver's own figures; the copy of its packets is shown, not gated.
        let rows = text.split(separator: "\n").filter { ($0.hasPrefix("| balanced") || $0.hasPrefix("| motion") || $0.hasPrefix("| detail"))
            && !$0.contains("(not gated)") }
        #expect(rows.count == 3, "a gated table row for each policy")
        for row in rows {
            #expect(row.contains("PASS"), "floor: \(row)")
        }
        #expect(process.terminationStatus == 0, "motion-bench --gate exits 0 when every floor holds")
    }
}
