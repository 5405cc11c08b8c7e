import Foundation
import Testing

/// The synthetic screen through screenshare to screen-receiver over SRTP on loopback.
@Suite(.serialized) struct FirstLightTests {
    @Test func fullHDShareDecodesAndAPLIIsAnsweredWithAnIDR() throws {
        let key = try makeKeyFile()
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: 16)
        let sender = try ManagedProcess("screenshare", ["share", "--source", "synthetic", "--scenario", "motion", "--policy", "detail", "--size", "1920x1080", "--fps", "30",
                                                        "--to", address, "--srtp-key-file", key.path, "--duration", "10", "--json"])
        // At 5 s the receiver asks for a keyframe.
        Thread.sleep(forTimeInterval: 5)
        let keyframesBefore = receiver.events("figures").last?["keyframes"] as? Int ?? 0
        receiver.send("pli")
        #expect(sender.waitForExit(timeout: 20) == 0)
        Thread.sleep(forTimeInterval: 1.5)
        receiver.send("stop")
        #expect(receiver.waitForExit(timeout: 5) == 0)

        let status = try #require(sender.events("status").last)
        let sent = try #require(status["framesSent"] as? Int)
        let figures = try #require(receiver.events("figures").last)
        let decoded = try #require(figures["framesDecoded"] as? Int)
        #expect(sent > 100, "frames flow for 10 s")
        #expect(Double(decoded) >= 0.95 * Double(sent), "decoded \(decoded) of \(sent)")
        #expect(figures["width"] as? Int == 1920)
        #expect(figures["height"] as? Int == 1080)
        #expect(figures["srtpFailures"] as? Int == 0)
        #expect((figures["plisSent"] as? Int ?? 0) >= 1)
        #expect((figures["keyframes"] as? Int ?? 0) > keyframesBefore, "the PLI was answered by an IDR")
        #expect((status["keyframesAsked"] as? Int ?? 0) >= 1)
        let everything = sender.lines.joined() + receiver.lines.joined()
        #expect(!everything.contains(key.base64), "the key never appears in any output")
    }

    @Test func aWrongKeyIsRefusedAndCounted() throws {
        let key = try makeKeyFile()
        let other = try makeKeyFile()
        let (receiver, address) = try ManagedProcess.receiver(key: other.path, seconds: 5)
        let sender = try ManagedProcess("screenshare", ["share", "--size", "640x360", "--to", address, "--srtp-key-file", key.path, "--duration", "3", "--json"])
        #expect(sender.waitForExit(timeout: 10) == 0)
        #expect(receiver.waitForExit(timeout: 10) == 0)
        let figures = try #require(receiver.events("figures").last)
        #expect(figures["framesDecoded"] as? Int == 0)
        #expect((figures["srtpFailures"] as? Int ?? 0) > 50)
    }

    @Test func plainRTPIsRefusedToANonLoopbackAddress() throws {
        let sender = try ManagedProcess("screenshare", ["share", "--to", "192.0.2.1:5004", "--insecure-rtp", "--duration", "1"], stderrTo: NSTemporaryDirectory() + "insecure.log")
        #expect(sender.waitForExit(timeout: 5) == 2)
        let log = try String(contentsOfFile: NSTemporaryDirectory() + "insecure.log", encoding: .utf8)
        #expect(log.contains("allowed only to loopback addresses"))
    }
}
