import Foundation
import Testing

/// `screen-receiver --snapshot FILE.png` writes the last picture it decoded: an orange X screen
/// shared over SRTP comes out an orange PNG at the screen's size (its colours read back by ffmpeg).
@Suite(.serialized) struct SnapshotTests {
    /// 4:2:0 and limited-range YUV move a flat colour by a few levels at most.
    static let colourTolerance = 8.0

    @Test func theLastPictureDecoded_isWrittenAsAPNGOfWhatWasShared() throws {
        let server = try TestXvfb(width: 1280, height: 720)
        server.run("xsetroot", ["-solid", "#ff8800"])
        let key = try makeKeyFile()
        let path = NSTemporaryDirectory() + "snapshot-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: 30, ["--snapshot", path])
        let sender = try ManagedProcess("screenshare", ["share", "--source", "x11:\(server.display)", "--to", address,
                                                        "--srtp-key-file", key.path, "--duration", "20"])
        #expect(receiver.waitFor(timeout: 15) { ($0.events("figures").last?["framesDecoded"] as? Int ?? 0) >= 3 })
        sender.interrupt()
        _ = sender.waitForExit(timeout: 10)
        receiver.send("stop")
        #expect(receiver.waitForExit(timeout: 10) == 0)
        let event = try #require(receiver.events("snapshot").last)
        #expect(event["path"] as? String == path && event["width"] as? Int == 1280 && event["height"] as? Int == 720)

        let mean = try Self.meanColour(path, pixels: 1280 * 720)
        print(String(format: "snapshot: %@ mean RGB %.1f, %.1f, %.1f", path, mean[0], mean[1], mean[2]))
        for (channel, wanted) in zip(mean, [255.0, 136.0, 0.0]) {
            #expect(abs(channel - wanted) <= Self.colourTolerance, "mean colour \(mean), shared #ff8800")
        }
    }

    @Test func withNothingDecoded_itSaysSoAndWritesNothing() throws {
        let key = try makeKeyFile()
        let path = NSTemporaryDirectory() + "snapshot-\(UUID().uuidString).png"
        let (receiver, _) = try ManagedProcess.receiver(key: key.path, seconds: 1, ["--snapshot", path])
        #expect(receiver.waitForExit(timeout: 10) == 0)
        #expect((receiver.events("snapshot").last?["error"] as? String)?.contains("no picture was decoded") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// The PNG's pixels, read by ffmpeg as rgb24, averaged per channel.
    static func meanColour(_ path: String, pixels: Int) throws -> [Double] {
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-loglevel", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let out = Pipe()
        ffmpeg.standardOutput = out
        ffmpeg.standardError = FileHandle.nullDevice
        try ffmpeg.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        ffmpeg.waitUntilExit()
        #expect(data.count == pixels * 3, "ffmpeg read \(data.count) bytes of RGB")
        var sums = [0.0, 0.0, 0.0]
        for (i, byte) in data.enumerated() { sums[i % 3] += Double(byte) }
        return sums.map { $0 / Double(max(1, data.count / 3)) }
    }
}
