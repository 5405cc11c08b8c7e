import Foundation
import Testing

/// docs/behaviour.md §2.5 still-frame repeat: a still screen is encoded again once a
/// second, and a keyframe asked for on a still screen comes at once.
@Suite(.serialized) struct StillScreenTests {
    @Test func stillScreenRepeatsOnceASecondAndAnswersAPLIWithin100ms() throws {
        let key = try makeKeyFile()
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: 12)
        let sender = try ManagedProcess("screenshare", ["share", "--scenario", "still", "--size", "1280x720", "--to", address,
                                                        "--srtp-key-file", key.path, "--duration", "10", "--json"])
        // From 2 s to 7 s the screen has been still for 5 s.
        Thread.sleep(forTimeInterval: 7)
        let figures = receiver.events("figures").compactMap { $0["framesDecoded"] as? Int }
        let lastFive = figures.suffix(6)
        let perSecond = Double(lastFive.last! - lastFive.first!) / Double(lastFive.count - 1)
        #expect(perSecond >= 0.6 && perSecond <= 1.6, "about one frame a second while still, got \(perSecond)")
        let status = try #require(sender.events("status").last)
        #expect((status["capturedFps"] as? Double ?? 1) == 0, "the repeat is not a capture")
        receiver.send("pli")
        #expect(receiver.waitFor(timeout: 3) { !$0.events("keyframe").isEmpty })
        let latency = try #require(receiver.events("keyframe").first?["latencyMs"] as? Double)
        print("still screen: \(perSecond) frames a second; PLI answered by an IDR in \(Int(latency)) ms")
        #expect(latency <= 100)
        _ = sender.waitForExit(timeout: 10)
        receiver.send("stop")
        _ = receiver.waitForExit(timeout: 5)
    }
}
