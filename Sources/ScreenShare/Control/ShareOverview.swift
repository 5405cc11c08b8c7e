import Encoding
import Events
import Sending

/// The whole share's two status lines, from every receiver's figures:
///
///     Screen: captured at 30 fps, Balanced, to 3 receivers, 7.4 Mbit/s in all
///     Frames: sent 30, 30, 15 fps; keyframes 6 made, 2 asked for; limited: bob by bandwidth; watchdog: watching
///
/// Keyframes made count each layer's once: its receivers all got the same ones.
struct ShareOverview {
    let policy: SendPolicy
    let capturedFPS: Double
    let receivers: [(id: String, status: ShareStatus)]

    var firstLine: String {
        let bitrate = receivers.reduce(0) { $0 + $1.status.bitrate }
        let count = receivers.count == 1 ? "1 receiver" : "\(receivers.count) receivers"
        return "Screen: captured at \(ShareStatus.rate(capturedFPS)) fps, \(policy.displayName), to \(count), \(ShareStatus.megabits(bitrate)) in all"
    }

    var secondLine: String {
        let sent = receivers.isEmpty ? "no receivers yet" : "sent " + receivers.map { ShareStatus.rate($0.status.sentFPS) }.joined(separator: ", ") + " fps"
        let made = ShareStatus.keyframesAcross(receivers.map { ($0.status.layer, $0.status.keyframesMade) })
        let asked = receivers.reduce(0) { $0 + $1.status.keyframesAsked }
        let limited = receivers.filter { $0.status.limitation != .none }.map { "\($0.id) \($0.status.limitation.rawValue)" }
        let watchdog = receivers.map(\.status.watchdog).first { $0 != "watching" } ?? "watching"
        return "Frames: \(sent); keyframes \(made) made, \(asked) asked for; "
            + (limited.isEmpty ? "" : limited.joined(separator: ", ") + "; ") + "watchdog: \(watchdog)"
    }

    var json: [(String, JSONValue)] {
        [("scope", .string("share")), ("line1", .string(firstLine)), ("line2", .string(secondLine)),
         ("receivers", .int(receivers.count)), ("capturedFps", .double(capturedFPS)), ("policy", .string(policy.rawValue)),
         ("bitrate", .int(receivers.reduce(0) { $0 + $1.status.bitrate }))]
    }
}
