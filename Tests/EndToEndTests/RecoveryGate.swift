import Foundation
import Testing

/// One run of a docs/behaviour.md §5.6 recovery gate: `screenshare share` and `screen-receiver`
/// as real processes over real UDP, on loopback or through a shaped link of the test's own, with
/// the stand-in call client between them; and what the gates read from what they said, on the
/// client's clock (seconds since it started).
struct RecoveryGate {
    /// docs/behaviour.md §5.6: restored within 30 s of the report, or said.
    static let gate = 30.0
    /// docs/behaviour.md §5.6: a sender fault (encoder, capture) is mended within 15 s.
    static let faultGate = 15.0
    /// "Restored": this many seconds of continuous decoding at `restoredFPS` or more.
    static let restoredFor = 3
    static let restoredFPS = 20.0
    /// A step's time may differ from its schedule by this much: the ladder looks four times a
    /// second, and the stand-in client passes lines on every 20 ms.
    static let scheduleMargin = 1.0
    static let wedgeAfter = 6.0

    let sender: ManagedProcess
    let receiver: ManagedProcess
    let client: StandInCallClient
    let key: (path: String, base64: String)
    let link: LinkNamespace?

    /// `link` nil is loopback; otherwise both processes run in a namespace shaped to that rate.
    init(wedge: String?, senderArguments: [String] = [], seconds: Int, link rate: String? = nil) throws {
        key = try makeKeyFile()
        link = try rate.map(LinkNamespace.init(rate:))
        let wedging = wedge.map { ["--wedge", $0, "--wedge-after", "\(RecoveryGate.wedgeAfter)"] } ?? []
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: seconds + 2, wedging, namespace: link?.name)
        sender = try ManagedProcess("screenshare", ["share", "--size", "1280x720", "--scenario", "motion", "--to", address,
                                                    "--srtp-key-file", key.path, "--duration", "\(seconds)", "--json"] + senderArguments,
                                    namespace: link?.name)
        self.receiver = receiver
        client = StandInCallClient(sender: sender, receiver: { receiver })
    }

    var linkName: String { link == nil ? "loopback" : "1.5 Mbit/s" }

    func finish() {
        client.stop()
        sender.interrupt()
        receiver.send("stop")
        _ = sender.waitForExit(timeout: 10)
        _ = receiver.waitForExit(timeout: 10)
        link?.close()
        let everything = sender.lines.joined() + receiver.lines.joined()
        #expect(!everything.contains(key.base64), "the key never appears in any output")
    }

    /// Waits for a line from `from` holding every piece.
    func wait(_ timeout: Double, from: String, _ pieces: String...) -> Double? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let t = client.lines(from: from).first(where: { line in pieces.allSatisfy(line.line.contains) })?.at { return t }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    /// Waits for the receiver's wedge to engage (within 15 s) and then to mend
    /// (within `seconds`); returns when it mended, and when the receiver reported its view stalled.
    func wedgeMended(within seconds: Double) throws -> (mended: Double, report: Double) {
        _ = try #require(wait(15, from: "receiver", "\"event\":\"wedge\"", "engaged"))
        let mended = try #require(wait(seconds, from: "receiver", "\"event\":\"wedge\"", "mended"))
        return (mended, try #require(report))
    }

    /// When the receiver first reported its view stalled.
    var report: Double? { client.firstTime(from: "receiver", containing: "\"screenStalled\":true") }

    /// When the sender took a step of its recovery for the receiver, as its `screen` log says:
    /// `keyframe`, `rebuild`, `shareAgain`, `gaveUp`, `freshEncoder`, `restartCapture`…
    func step(_ name: String) -> Double? {
        client.firstTime(from: "sender", containing: "the receiver: \(name) —")
    }

    /// When the sender said it sends: the start its `--fault` times count from.
    var sending: Double? { client.firstTime(from: "sender", containing: "\"event\":\"sending\"") }

    /// The receiver's decoded frame rate, once a second.
    var decodedFPS: [(at: Double, fps: Double)] {
        client.lines(from: "receiver", containing: "\"event\":\"figures\"").compactMap { seen in
            guard let object = try? JSONSerialization.jsonObject(with: Data(seen.line.utf8)) as? [String: Any],
                  let fps = object["decodedFps"] as? Double else { return nil }
            return (seen.at, fps)
        }
    }

    /// When `restoredFor` seconds of decoding at `restoredFPS` or more began, after `after`;
    /// each figure is the second before it.
    func restored(after: Double) -> Double? {
        let figures = decodedFPS.filter { $0.at >= after + 1 }
        guard figures.count >= Self.restoredFor else { return nil }
        for i in 0...(figures.count - Self.restoredFor) where figures[i..<(i + Self.restoredFor)].allSatisfy({ $0.fps >= Self.restoredFPS }) {
            return figures[i].at - 1
        }
        return nil
    }

    /// Waits for `restored(after:)`, the figures of `restoredFor` seconds and a second more.
    func waitForRestore(after: Double) -> Double? {
        let deadline = Date(timeIntervalSinceNow: Double(Self.restoredFor) + 5)
        while Date() < deadline {
            if let t = restored(after: after) { return t }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    /// The first second after `after` whose decoding fell below `restoredFPS`: a fault seen at the receiver.
    func fell(after: Double) -> Double? {
        decodedFPS.first { $0.at >= after && $0.fps < Self.restoredFPS }?.at
    }

    /// Expects `later` to come `spacing` seconds (± the margin) after `earlier`.
    static func expectSpacing(_ earlier: Double?, _ later: Double?, _ spacing: Double, _ what: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        guard let earlier, let later else {
            Issue.record("\(what): a step is missing (\(String(describing: earlier)), \(String(describing: later)))",
                         sourceLocation: sourceLocation)
            return
        }
        #expect(abs(later - earlier - spacing) <= scheduleMargin,
                "\(what): \(String(format: "%.1f", later - earlier)) s, not \(spacing) s ± \(scheduleMargin)",
                sourceLocation: sourceLocation)
    }

    static func format(_ value: Double?) -> String {
        value.map { String(format: "%.1f", $0) } ?? "-"
    }
}
