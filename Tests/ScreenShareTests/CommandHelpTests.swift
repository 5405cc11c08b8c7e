import Events
import Foundation
import ScreenShare
import Testing

/// `--help` on each command lists every option with its default, and every option it lists is one the
/// command takes. (screen-receiver's, in its own program, is run by the end-to-end tests.)
struct CommandHelpTests {
    /// A value each option takes, so that a command line with every listed option parses.
    static let samples: [String: String] = [
        "source": "x11::1", "monitor": "HDMI-1", "restore-token-file": "/tmp/t", "size": "1280x720", "scenario": "still",
        "fps": "15", "to": "127.0.0.1:5004", "rtcp-to": "127.0.0.1:5005", "bind": "127.0.0.1:0", "srtp-profile": "aes",
        "policy": "detail", "bitrate-max": "2M", "ssrc": "1234", "h264-level": "3.1", "profile-level-id": "640028", "sdp": "/tmp/s.sdp",
        "duration": "5", "log-level": "debug", "fault": "capture-stops:3", "control": "unix:/tmp/c.sock", "count": "10", "seed": "2",
        "display": ":1", "rtx-pt": "97",
    ]

    func askForHelp(_ parse: ([String]) throws(ArgumentParser.Failure) -> Void) -> String? {
        do throws(ArgumentParser.Failure) {
            try parse(["--help"])
            return nil
        } catch {
            return error.isHelp ? error.description : nil
        }
    }

    /// Every listed option, with a value where it takes one, minus those that exclude one another.
    func everyOption(_ help: CommandHelp, leaving out: Set<String> = []) -> [String] {
        help.options.filter { !out.contains($0.name) }.flatMap { o in
            o.value == nil ? ["--" + o.name] : ["--" + o.name, Self.samples[o.name] ?? "1"]
        }
    }

    @Test(arguments: [("share", ShareOptions.help), ("serve", ServeOptions.help), ("frames", RawFramesCommand.help),
                      ("sources", SourceInventory.help)])
    func help_listsEveryOptionWithItsDefault(command: String, help: CommandHelp) {
        let text = help.text
        #expect(text.hasPrefix("usage: screenshare \(command)"))
        for option in help.options {
            let line = text.split(separator: "\n").first { $0.hasPrefix("  --\(option.name) ") || $0 == "  --\(option.name)" }
            #expect(line?.contains("(default: \(option.byDefault))") == true, "--\(option.name) in \(command) --help: \(line ?? "missing")")
        }
    }

    @Test func share_takesEveryOptionItsHelpLists_andHelpWinsOverEverythingElse() throws {
        // --window and --region exclude --monitor; --insecure-rtp excludes the key file; the portal options want the portal.
        let line = everyOption(ShareOptions.help, leaving: ["window", "region", "insecure-rtp", "srtp-key-file", "portal-window", "pipewire-link"])
        let key = NSTemporaryDirectory() + "help-test-key-\(UUID().uuidString)"
        let written = FileManager.default.createFile(atPath: key, contents: Data((Data((0..<30).map { UInt8($0) }).base64EncodedString() + "\n").utf8),
                                                     attributes: [.posixPermissions: 0o600])
        try #require(written)
        defer { try? FileManager.default.removeItem(atPath: key) }
        let options = try ShareOptions.parse(line + ["--srtp-key-file", key])
        #expect(options.source.part == .monitor("HDMI-1") && options.policy == .detail && options.fps == 15)
        let portal = try ShareOptions.parse(["--to", "127.0.0.1:5004", "--insecure-rtp", "--source", "portal", "--portal-window", "--pipewire-link"])
        #expect(portal.source.portalWindow && portal.source.linkPipeWire)
        #expect(askForHelp { args throws(ArgumentParser.Failure) in _ = try ShareOptions.parse(args + ["--policy", "nonsense"]) } != nil)
        #expect(throws: ArgumentParser.Failure.self) { try ShareOptions.parse(["--to", "127.0.0.1:5004", "--insecure-rtp", "--frob"]) }
    }

    @Test func serveAndFrames_takeEveryOptionTheirHelpLists() throws {
        let serve = try ServeOptions.parse(everyOption(ServeOptions.help))
        #expect(serve.control == .unix(path: "/tmp/c.sock") && serve.allowUnencrypted && serve.logLevel == .debug)
        let frames = try RawFramesCommand.parse(everyOption(RawFramesCommand.help))
        #expect(frames.size == (1280, 720) && frames.count == 10 && frames.seed == 2)
        #expect(askForHelp { args throws(ArgumentParser.Failure) in _ = try ServeOptions.parse(args) }?.contains("--control") == true)
    }
}
