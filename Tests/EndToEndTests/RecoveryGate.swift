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
    /// With `watched`: a second receiver on the wedged one's layer, never wedged itself.
    let watcher: ManagedProcess?
    let client: StandInCallClient
    let key: (path: String, base64: String)
    let link: LinkNamespace?

    /// `link` nil is loopback; otherwise both processes run in a namespace shaped to that rate.
    /// `watched`: `serve` sends to the receiver and a watcher on one layer (docs/behaviour.md §12),
    /// instead of `share` to the receiver alone.
    init(wedge: String?, senderArguments: [String] = [], seconds: Int, link rate: String? = nil, watched: Bool = false) throws {
        key = try makeKeyFile()
        link = try rate.map(LinkNamespace.init(rate:))
        let wedging = wedge.map { ["--wedge", $0, "--wedge-after", "\(RecoveryGate.wedgeAfter)"] } ?? []
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: seconds + 2, wedging, namespace: link?.name)
        self.receiver = receiver
        guard watched else {
            sender = try ManagedProcess("screenshare", ["share", "--size", "1280x720", "--scenario", "motion", "--to", address,
                                                        "--srtp-key-file", key.path, "--duration", "\(seconds)", "--json"] + senderArguments,
                                        namespace: link?.name)
            watcher = nil
            client = StandInCallClient(sender: sender, receiver: { receiver })
            return
        }
        let watcherKey = try makeKeyFile()
        let (watcher, watcherAddress) = try ManagedProcess.receiver(key: watcherKey.path, seconds: seconds + 2, namespace: link?.name)
        self.watcher = watcher
        sender = try ManagedProcess("screenshare", ["serve", "--control", "stdio"], namespace: link?.name)
        client = StandInCallClient(sender: sender, kind: .serve, receivers: [("receiver", { receiver }), ("watcher", { watcher })])
        try Self.startServing(sender, to: [("receiver", "the receiver", address, key.base64),
                                           ("watcher", "the watcher", watcherAddress, watcherKey.base64)])
    }

    struct Refused: Error, CustomStringConvertible {
        let command: String
        var description: String { "serve refused \(command)" }
    }

    /// What a call client says to `serve` to share the synthetic screen the way `share` does to each
    /// receiver, with the transport-wide feedback screen-receiver offers: with loss alone, two
    /// streams through one bottleneck climb past it together (docs/behaviour.md §5.6).
    private static func startServing(_ serve: ManagedProcess, to receivers: [(id: String, name: String, address: String, key: String)]) throws {
        let h264 = #"[{"name":"H264","payloadType":102,"profileLevelId":"42e01f","packetizationMode":1}]"#
        let extensions = #"[{"uri":"http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time","id":3},"#
            + #"{"uri":"http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01","id":5}]"#
        var commands = [#"{"cmd":"hello","protocol":1,"logLevel":"info""#,
                        #"{"cmd":"start","source":"synthetic","size":"1280x720","scenario":"motion","fps":30"#]
        for r in receivers {
            commands.append(#"{"cmd":"addReceiver","receiver":"\#(r.id)","name":"\#(r.name)","destination":"\#(r.address)","#
                            + #""srtp":{"profile":"AES_CM_128_HMAC_SHA1_80","key":"\#(r.key)"},"codecs":\#(h264),"headerExtensions":\#(extensions)"#)
        }
        for (i, command) in commands.enumerated() {
            serve.send(command + ",\"id\":\(i + 1)}")
            guard serve.answer(id: i + 1)?["ok"] as? Bool == true else { throw Refused(command: String(command.prefix(40))) }
        }
    }

    var linkName: String { link == nil ? "loopback" : "1.5 Mbit/s" }

    func finish() {
        client.stop()
        sender.interrupt()
        for r in [receiver] + [watcher].compactMap({ $0 }) { r.send("stop") }
        _ = sender.waitForExit(timeout: 10)
        for r in [receiver] + [watcher].compactMap({ $0 }) { _ = r.waitForExit(timeout: 10) }
        link?.close()
        let everything = sender.lines.joined() + receiver.lines.joined() + (watcher?.lines.joined() ?? "")
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

    /// When the receiver's wedge engaged.
    var engaged: Double? { client.firstTime(from: "receiver", containing: "\"event\":\"wedge\"", "engaged") }

    /// The sender's diagnostics text: `share` prints it on SIGUSR1, `serve` answers the command.
    func diagnostics() -> String {
        guard watcher != nil else {
            kill(sender.process.processIdentifier, SIGUSR1)
            sender.waitFor(timeout: 5) { !$0.events("diagnostics").isEmpty }
            return sender.events("diagnostics").first?["text"] as? String ?? ""
        }
        sender.send(#"{"cmd":"diagnostics","id":1000}"#)
        return sender.answer(id: 1000)?["text"] as? String ?? ""
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

    /// The receiver's (or the watcher's) decoded frame rate, once a second.
    func decodedFPS(of label: String = "receiver") -> [(at: Double, fps: Double)] {
        client.objects(from: label, containing: "\"event\":\"figures\"").compactMap { seen in
            (seen.object["decodedFps"] as? Double).map { (seen.at, $0) }
        }
    }

    /// When `restoredFor` seconds of decoding at `restoredFPS` or more began, after `after`;
    /// each figure is the second before it.
    func restored(after: Double, of label: String = "receiver") -> Double? {
        let figures = decodedFPS(of: label).filter { $0.at >= after + 1 }
        guard figures.count >= Self.restoredFor else { return nil }
        for i in 0...(figures.count - Self.restoredFor) where figures[i..<(i + Self.restoredFor)].allSatisfy({ $0.fps >= Self.restoredFPS }) {
            return figures[i].at - 1
        }
        return nil
    }

    /// Waits for `restored(after:)`, the figures of `restoredFor` seconds and a second more.
    func waitForRestore(after: Double, of label: String = "receiver") -> Double? {
        let deadline = Date(timeIntervalSinceNow: Double(Self.restoredFor) + 5)
        while Date() < deadline {
            if let t = restored(after: after, of: label) { return t }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    /// The first second after `after` whose decoding fell below `restoredFPS`: a fault seen at the receiver.
    func fell(after: Double) -> Double? {
        decodedFPS().first { $0.at >= after && $0.fps < Self.restoredFPS }?.at
    }

    /// A share-again gives everyone a new transceiver: the watcher may miss this long while it takes its keyframe.
    static let shareAgainGap = 5.0
    /// Seconds of the watcher's figures a gate judges at the least.
    static let watcherSeconds = 5.0
    /// Through the shaped link, the percentage of the watcher's seconds that must reach `restoredFPS`
    /// (whole numbers: 9 seconds of 10 is 90 %, where 10 × (1 − 0.9) in floating point is under 1):
    /// its stream and the receiver's cross one bottleneck, each with an estimate of its own.
    static let watcherPercentAtRate = 90

    /// With a watcher: the ladder's steps for the receiver left the watcher's view alone, from
    /// `from` to the end (waiting for `watcherSeconds` of its figures, since a wedge mended at
    /// once ends the run early), but for `shareAgainGap` after a share-again, which is for
    /// everyone and after which it is restored. Its stream was never replaced and its view never
    /// stalled; on loopback it decoded at `restoredFPS` or more in every second, and through the
    /// shaped link in `watcherPercentAtRate` of them, never a whole second without a picture.
    func expectWatcherKeptDecoding(from: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let watcher else { return }
        let shareAgain = step("shareAgain")
        _ = watcher.waitFor(timeout: Self.watcherSeconds + 3) { _ in
            decodedFPS(of: "watcher").filter { $0.at >= from + 1 }.count >= Int(Self.watcherSeconds)
        }
        let excused = { (at: Double) in shareAgain.map { at >= $0 && at <= $0 + Self.shareAgainGap } ?? false }
        let figures = decodedFPS(of: "watcher").filter { $0.at >= from + 1 && !excused($0.at) }
        let slow = figures.filter { $0.fps < Self.restoredFPS }.map { "\(Self.format($0.at)) s: \($0.fps) fps" }
        print("watcher: \(figures.count) s of figures outside a share-again, \(slow.count) below \(Int(Self.restoredFPS)) fps \(slow)")
        if !slow.isEmpty { printWatcherTrace() }
        #expect(figures.count >= Int(Self.watcherSeconds), "the watcher's figures came", sourceLocation: sourceLocation)
        if link == nil {
            #expect(slow.isEmpty, "the watcher on the receiver's layer kept decoding: \(slow)", sourceLocation: sourceLocation)
        } else {
            #expect((figures.count - slow.count) * 100 >= figures.count * Self.watcherPercentAtRate,
                    "the watcher on the receiver's layer kept decoding: \(slow)", sourceLocation: sourceLocation)
            #expect(!figures.contains { $0.fps == 0 }, "the watcher never went a second without a picture", sourceLocation: sourceLocation)
        }
        #expect(client.firstTime(from: "watcher", containing: "\"screenStalled\":true") == nil,
                "the watcher's view never stalled", sourceLocation: sourceLocation)
        let replaced = client.lines(from: "sender", containing: "\"event\":\"transceiver\"", "\"receiver\":\"watcher\"")
            .filter { $0.at < shareAgain ?? .infinity }
        #expect(replaced.isEmpty, "the watcher's stream was replaced only by a share-again: \(replaced.map(\.line))",
                sourceLocation: sourceLocation)
        if let shareAgain {
            let back = waitForRestore(after: shareAgain, of: "watcher")
            #expect((back ?? .infinity) - shareAgain <= Self.shareAgainGap, "the watcher was restored after the share-again",
                    sourceLocation: sourceLocation)
        }
        let layers = sender.events("status").filter { $0["receiver"] != nil }.suffix(2).compactMap { $0["layer"] as? Int }
        #expect(layers.count == 2 && layers[0] == layers[1], "both on one layer: \(layers)", sourceLocation: sourceLocation)
    }

    /// The watcher's seconds and what the sender did meanwhile, so that a slow second can be
    /// explained from the test's output alone: each figures line, each status line for the
    /// watcher, and each log line of the sender.
    private func printWatcherTrace() {
        func figures(_ o: [String: Any], _ keys: [String]) -> String {
            keys.map { "\($0) \(o[$0].map { "\($0)" } ?? "-")" }.joined(separator: ", ")
        }
        var trace: [(at: Double, text: String)] = []
        for seen in client.objects(from: "watcher", containing: "\"event\":\"figures\"") {
            trace.append((seen.at, "watcher: " + figures(seen.object, ["decodedFps", "lostPackets", "framesIncomplete", "plisSent",
                                                                       "nacksSent", "keyframes", "width", "ssrc"])))
        }
        for seen in client.objects(from: "sender", containing: "\"event\":\"status\"", "\"receiver\":\"watcher\"") {
            trace.append((seen.at, "sender for the watcher: " + figures(seen.object, ["width", "bitrate", "targetBitrate", "keyframesMade",
                                                                                      "keyframesAsked", "pacerDrops", "sentFps", "limitedBy"])))
        }
        for seen in client.objects(from: "sender", containing: "\"event\":\"log\"") {
            trace.append((seen.at, "sender: " + ((seen.object["message"] as? String) ?? "")))
        }
        for entry in trace.sorted(by: { $0.at < $1.at }) { print("  \(Self.format(entry.at)) \(entry.text)") }
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
