import Events
/// The two status lines of docs/behaviour.md §3.8, and the figures behind them.
public struct ShareStatus: Sendable, Equatable {
    public enum Limitation: String, Sendable {
        case none = ""
        case bandwidth = "limited by bandwidth"
        case cpu = "limited by CPU"
    }

    /// What the receiver tells of the link: nothing at all keeps the share at its cap.
    public enum Feedback: String, Sendable {
        case none
        case receiverReports
        case transportWide
    }

    public var width = 0
    public var height = 0
    /// Frames that left for the receiver in the last second.
    public var fps = 0.0
    public var limitation = Limitation.none
    public var feedback = Feedback.receiverReports
    public var bitrate = 0
    public var targetBitrate = 0
    /// "direct" for a receiver sent to straight, as opposed to through a relay.
    public var path = "direct"
    public var codec = "H264"
    public var capturedFPS = 0.0
    public var encodedFPS = 0.0
    public var sentFPS = 0.0
    /// The layer whose encoder feeds this receiver (docs/behaviour.md §12); 0 before it has one.
    public var layer = 0
    /// The keyframes its layer's encoder has made: the ones this receiver's stream got.
    public var keyframesMade = 0
    public var keyframesAsked = 0
    public var framesDroppedLate = 0
    public var framesDroppedBusy = 0
    public var packetsDroppedPacer = 0
    public var watchdog = "watching"
    public var framesSent = 0
    public var framesEncoded = 0
    public var glassToPacketP50: Duration?
    public var glassToPacketP99: Duration?

    public init() {}

    public var firstLine: String {
        var parts = ["\(width)×\(height) at \(Int(fps.rounded())) fps"]
        if limitation != .none { parts.append(limitation.rawValue) }
        if feedback == .none { parts.append("no feedback from the receiver") }
        parts.append(ShareStatus.megabits(bitrate))
        parts.append("\(path) (\(codec) software)")
        return "Screen: " + parts.joined(separator: ", ")
    }

    public var secondLine: String {
        "Frames: captured \(ShareStatus.rate(capturedFPS)), encoded \(ShareStatus.rate(encodedFPS)), sent \(ShareStatus.rate(sentFPS)) fps; "
            + "keyframes \(keyframesMade) made, \(keyframesAsked) asked for; "
            + "dropped \(framesDroppedLate) late, \(framesDroppedBusy) busy, \(packetsDroppedPacer) packets; "
            + "watchdog: \(watchdog)"
    }

    package static func megabits(_ bits: Int) -> String {
        let m = Double(bits) / 1_000_000
        return m >= 10 ? "\(Int(m.rounded())) Mbit/s" : "\((m * 10).rounded() / 10) Mbit/s"
    }

    package static func rate(_ fps: Double) -> String {
        String(Int(fps.rounded()))
    }

    public var json: [(String, JSONValue)] {
        [
            ("line1", .string(firstLine)), ("line2", .string(secondLine)),
            ("width", .int(width)), ("height", .int(height)), ("fps", .double(fps)),
            ("limitedBy", .string(limitation == .none ? "nothing" : limitation == .bandwidth ? "bandwidth" : "cpu")),
            ("bitrate", .int(bitrate)), ("targetBitrate", .int(targetBitrate)), ("feedback", .string(feedback.rawValue)),
            ("codec", .string(codec)),
            ("capturedFps", .double(capturedFPS)), ("encodedFps", .double(encodedFPS)), ("sentFps", .double(sentFPS)),
            ("layer", .int(layer)), ("keyframesMade", .int(keyframesMade)), ("keyframesAsked", .int(keyframesAsked)),
            ("droppedLate", .int(framesDroppedLate)), ("droppedBusy", .int(framesDroppedBusy)),
            ("pacerDrops", .int(packetsDroppedPacer)), ("framesSent", .int(framesSent)), ("framesEncoded", .int(framesEncoded)), ("watchdog", .string(watchdog)),
            ("glassToPacketP50Ms", glassToPacketP50.map { .double($0.inMilliseconds) } ?? .null),
            ("glassToPacketP99Ms", glassToPacketP99.map { .double($0.inMilliseconds) } ?? .null),
        ]
    }

    /// Keyframes made across a share, from each receiver's layer and count: receivers on one
    /// layer got the same ones, so each layer counts once.
    public static func keyframesAcross(_ receivers: [(layer: Int, made: Int)]) -> Int {
        var byLayer: [Int: Int] = [:]
        var alone = 0
        for r in receivers {
            if r.layer == 0 { alone += r.made } else { byLayer[r.layer] = max(byLayer[r.layer] ?? 0, r.made) }
        }
        return alone + byLayer.values.reduce(0, +)
    }
}
