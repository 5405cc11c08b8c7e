import Foundation
import Testing

/// `--help` on every command of both programs: it succeeds, on stdout, with each option and its default.
struct HelpTests {
    @Test(arguments: [("screenshare", ["share"], ["--source", "--to", "--srtp-key-file", "--policy", "--duration"]),
                      ("screenshare", ["serve"], ["--control", "--allow-unencrypted", "--log-level"]),
                      ("screenshare", ["sources"], ["--display"]),
                      ("screenshare", ["frames"], ["--size", "--count"]),
                      ("screen-receiver", [], ["--listen", "--srtp-key-file", "--codec", "--wedge", "--duration"])])
    func help_printsEveryOptionWithItsDefault(program: String, command: [String], options: [String]) throws {
        let p = try ManagedProcess(program, command + ["--help"])
        #expect(p.waitForExit(timeout: 10) == 0)
        let lines = p.lines
        #expect(lines.first?.hasPrefix("usage: \(([program] + command).joined(separator: " "))") == true, "\(lines.first ?? "")")
        for option in options {
            #expect(lines.contains { $0.hasPrefix("  \(option) ") && $0.contains("(default: ") }, "\(option) is listed with its default")
        }
        let listed = lines.filter { $0.hasPrefix("  --") }
        #expect(listed.dropLast().allSatisfy { $0.contains("(default: ") }, "every option says its default")
    }

    @Test func anUnknownOption_isRefusedInWords() throws {
        let log = NSTemporaryDirectory() + "help-test-\(UUID().uuidString).err"
        let p = try ManagedProcess("screenshare", ["share", "--to", "127.0.0.1:5004", "--insecure-rtp", "--frob"], stderrTo: log)
        #expect(p.waitForExit(timeout: 10) == 2)
        let error = try String(contentsOfFile: log, encoding: .utf8)
        #expect(error.contains("unknown option --frob (--help lists the options)"), "\(error)")
    }
}
