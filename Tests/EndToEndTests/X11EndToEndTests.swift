import Foundation
import Testing

/// A 1920×1080 Xvfb through `screenshare share --source x11::N` to screen-receiver
/// over SRTP on loopback: frames keep coming while the screen changes, and a
/// still screen costs one repeated frame a second.
@Suite(.serialized) struct X11EndToEndTests {
    /// How long the root is repainted, and how long it is then left alone.
    static let movingSeconds = 6.0
    static let stillSeconds = 6.0
    /// Status lines in the first seconds of stillness still count frames of the moving part.
    static let stillSettleSeconds = 2.5

    @Test func sourcesListsTheXvfbMonitor() throws {
        let server = try TestXvfb()
        let sources = try ManagedProcess("screenshare", ["sources", "--display", server.display])
        #expect(sources.waitForExit(timeout: 10) == 0)
        let text = sources.lines.joined(separator: "\n")
        #expect(text.contains("X11 \(server.display) (--source x11[:DISPLAY]):"), "\(text)")
        #expect(text.contains("screen 1920×1080 at 0,0"), "\(text)")
    }

    @Test func changingScreenStreamsAtFullHDAndAStillOneRepeatsOnceASecond() throws {
        let server = try TestXvfb()
        server.run("xsetroot", ["-solid", "#336699"])
        let key = try makeKeyFile()
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: 40)
        let log = NSTemporaryDirectory() + "x11-e2e-sender-\(server.number).log"
        let sender = try ManagedProcess("screenshare", ["share", "--source", "x11:\(server.display)", "--to", address,
                                                        "--srtp-key-file", key.path, "--duration", "30", "--json"], stderrTo: log)
        defer {
            sender.interrupt()
            receiver.send("stop")
            _ = sender.waitForExit(timeout: 10)
            _ = receiver.waitForExit(timeout: 10)
        }
        #expect(receiver.waitFor(timeout: 15) { Self.decoded($0) >= 1 }, "the first frame arrives")

        // Moving: the whole root alternates colour as fast as xsetroot can be run (10–20 times a second).
        let movingFrom = Self.decoded(receiver)
        let movingStart = Date()
        var repaints = 0
        while Date().timeIntervalSince(movingStart) < Self.movingSeconds {
            server.run("xsetroot", ["-solid", repaints % 2 == 0 ? "#ff8800" : "#22aa44"])
            repaints += 1
            Thread.sleep(forTimeInterval: 0.03)
        }
        let movingElapsed = Date().timeIntervalSince(movingStart)
        let movingTo = Self.decoded(receiver)
        let movingFPS = Double(movingTo - movingFrom) / movingElapsed
        let movingFigures = receiver.events("figures").suffix(3)

        // Still: nothing is drawn.
        Thread.sleep(forTimeInterval: Self.stillSettleSeconds)
        let statusesBefore = sender.events("status").count
        let stillFrom = Self.decoded(receiver)
        let stillStart = Date()
        Thread.sleep(forTimeInterval: Self.stillSeconds - Self.stillSettleSeconds)
        let stillFPS = Double(Self.decoded(receiver) - stillFrom) / Date().timeIntervalSince(stillStart)
        let stillStatuses = Array(sender.events("status").dropFirst(statusesBefore))

        let figures = try #require(receiver.events("figures").last)
        #expect(figures["width"] as? Int == 1920)
        #expect(figures["height"] as? Int == 1080)
        #expect(figures["srtpFailures"] as? Int == 0)
        print("x11 e2e: \(repaints) repaints in \(String(format: "%.1f", movingElapsed)) s; decoded \(String(format: "%.1f", movingFPS)) fps moving, "
            + "\(String(format: "%.1f", stillFPS)) fps still; still status lines: "
            + stillStatuses.map { "captured \($0["capturedFps"] ?? "?") encoded \($0["encodedFps"] ?? "?")" }.joined(separator: ", "))

        // Each repaint is a frame unless two land in one capture tick; on a loaded machine some merge.
        #expect(movingFPS > 4, "decoded \(movingFPS) fps while the screen changed \(Double(repaints) / movingElapsed) times a second")
        #expect(movingTo - movingFrom >= repaints / 2, "decoded \(movingTo - movingFrom) frames for \(repaints) repaints")
        for f in movingFigures {
            #expect(Self.number(f["decodedFps"]) > 2, "frames keep coming while the screen changes: \(f)")
        }

        // About one frame a second: the still-frame repeat, nothing captured.
        #expect(stillFPS >= 0.5 && stillFPS <= 2, "decoded \(stillFPS) fps on a still screen")
        #expect(stillStatuses.count >= 2)
        // A repeat a second counted in one-second status windows: a window may catch none and the next two,
        // but two empty windows running, or none at all, is the repeat stopping.
        let encoded = stillStatuses.map { Self.number($0["encodedFps"]) }
        for (s, fps) in zip(stillStatuses, encoded) {
            let captured = Self.number(s["capturedFps"])
            #expect(captured >= 0 && captured < 0.5, "nothing captured on a still screen: \(s)")
            #expect(fps <= 2, "no more than the once-a-second repeat: \(s)")
        }
        #expect(!zip(encoded, encoded.dropFirst()).contains { $0 < 0.5 && $1 < 0.5 }, "the still frame stopped being repeated: \(encoded)")
        #expect(encoded.reduce(0, +) / Double(max(encoded.count, 1)) >= 0.5, "the still frame is repeated once a second: \(encoded)")
    }

    /// A JSON number as a Double, whether it was written with a point or not; -1 when missing.
    static func number(_ value: Any?) -> Double {
        (value as? NSNumber)?.doubleValue ?? -1
    }

    static func decoded(_ receiver: ManagedProcess) -> Int {
        receiver.events("figures").last?["framesDecoded"] as? Int ?? 0
    }
}
