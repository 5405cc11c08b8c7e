import Foundation
import Testing

/// A receiver that moves every 20 s (the call client tells the sender its new
/// address, as after a relay renewal) and whose process restarts every 10 s
/// keeps decoding, or comes back, without a share-again.
@Suite(.serialized) struct MovingReceiverTests {
    @Test func receiverThatMovesAndRestarts_keepsDecodingWithoutAShareAgain() throws {
        let key = try makeKeyFile()
        func receiver(_ listen: String) throws -> (ManagedProcess, String) {
            try ManagedProcess.receiver(key: key.path, listen: listen, seconds: 12)
        }
        // At 0 s a receiver on port A; at 10 s it restarts on A; at 20 s it
        // comes back on port B and the sender is told.
        var (current, address) = try receiver("127.0.0.1:0")
        let sender = try ManagedProcess("screenshare", ["share", "--size", "1280x720", "--scenario", "motion", "--to", address,
                                                        "--srtp-key-file", key.path, "--duration", "32", "--json"])
        let client = StandInCallClient(sender: sender, receiver: { current })
        defer {
            client.stop()
            sender.interrupt()
            _ = sender.waitForExit(timeout: 10)
        }
        var decodedPerReceiver: [Int] = []
        for step in 0..<3 {
            Thread.sleep(forTimeInterval: 10)
            current.send("stop")
            _ = current.waitForExit(timeout: 5)
            decodedPerReceiver.append(current.events("figures").last?["framesDecoded"] as? Int ?? 0)
            guard step < 2 else { break }
            if step == 0 {
                (current, _) = try receiver(address)
            } else {
                let moved = try receiver("127.0.0.1:0")
                current = moved.0
                sender.send("destination \(moved.1)")
            }
        }
        print("moving receiver: decoded \(decodedPerReceiver) frames in each 10 s")
        for decoded in decodedPerReceiver { #expect(decoded > 150, "each receiver process decodes most of its 10 s") }
        #expect(client.firstTime(from: "sender", containing: "\"event\":\"shareAgain\"") == nil)
    }

    @Test func receiverRestartedAfterTheSequenceWrapped_decodesAtOnceWithoutTheLadder() throws {
        // The numbers start 2000 before the wrap, so they wrap about 5 s in and
        // the sender's SRTP counts roll-over 1. At 8 s the receiver restarts
        // on the same address with the same key: its new SRTP session assumes
        // roll-over 0, so not one packet of the old stream authenticates. Its
        // first reports come from a new SSRC and cover none of ours: the
        // sender starts a new stream (roll-over 0 again) and the restarted
        // receiver decodes within 5 s, with no stall report's ladder.
        let key = try makeKeyFile()
        var (current, address) = try ManagedProcess.receiver(key: key.path, seconds: 30)
        let sender = try ManagedProcess("screenshare", ["share", "--size", "1280x720", "--scenario", "motion", "--to", address,
                                                        "--srtp-key-file", key.path, "--duration", "24", "--json",
                                                        "--first-sequence", "63536"])
        let client = StandInCallClient(sender: sender, receiver: { current })
        defer {
            client.stop()
            sender.interrupt()
            current.send("stop")
            _ = sender.waitForExit(timeout: 10)
        }
        Thread.sleep(forTimeInterval: 8)
        current.send("stop")
        _ = current.waitForExit(timeout: 5)
        let before = current.events("figures").last?["framesDecoded"] as? Int ?? 0
        let restartedAt = Date()
        (current, _) = try ManagedProcess.receiver(key: key.path, listen: address, seconds: 20)
        let decoding = current.waitFor(timeout: 12) { $0.lines.contains { $0.contains("first picture decoded") } }
        let took = Date().timeIntervalSince(restartedAt)
        Thread.sleep(forTimeInterval: 3)
        let figures = current.events("figures").last ?? [:]
        let failures = figures["srtpFailures"] as? Int ?? 0
        let decoded = figures["framesDecoded"] as? Int ?? 0
        print("restart after the wrap: the first receiver decoded \(before) frames; the restarted one its first "
              + "\(String(format: "%.1f", took)) s after it started (\(failures) packets failed authentication), \(decoded) in all")
        #expect(before > 100, "the first receiver decodes across the wrap")
        #expect(decoding && took <= 5, "the restarted receiver decodes within 5 s")
        #expect(decoded > 60, "and goes on decoding")
        #expect(client.firstTime(from: "sender", containing: "\"event\":\"transceiver\"", "receiverRestarted") != nil)
        #expect(client.firstTime(from: "sender", containing: "\"event\":\"transceiver\"", "rebuild") == nil, "no rebuild")
        #expect(client.firstTime(from: "sender", containing: "\"event\":\"shareAgain\"") == nil, "no share-again")
    }
}
