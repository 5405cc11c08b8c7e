import Events
import Media
import Recovery
import Sending

/// The quality report of docs/behaviour.md §10.2, what a call client puts in
/// its call diagnostics: every `interval`, for each receiver and for the share,
/// what was sent (size, frame rate, bitrate), what held it back and for how
/// long, keyframes made and asked for, the screen stopping and the recovery
/// steps taken, and the freezes the receiver reported.
///
/// Pure: fed once a second with each receiver's status and recovery tally.
struct QualityReporter {
    /// docs/behaviour.md §10.2: often enough to place a problem within a call, rare enough to read.
    static let interval: Duration = .seconds(30)
    /// A resizing window could pass through any number of sizes; the report keeps the most used.
    static let sizesKept = 8

    struct Sample {
        let id: String
        let name: String
        let status: ShareStatus
        let tally: RecoveryTally
    }

    fileprivate struct Counts {
        var layer: Int
        var keyframesMade: Int
        var keyframesAsked: Int
        var tally: RecoveryTally
        var frozen: Duration
    }

    fileprivate struct Period {
        let name: String
        let first: Counts
        var last: Counts
        var seconds = 0
        var fps = 0.0
        var bitrate = 0
        var sizes: [(width: Int, height: Int, seconds: Int)] = []
        var limited: [ShareStatus.Limitation: Int] = [:]

        init(_ sample: Sample, at now: Instant) {
            name = sample.name
            first = Counts(sample, at: now)
            last = first
        }

        init(after previous: Period) {
            name = previous.name
            first = previous.last
            last = previous.last
        }
    }

    private var started: Instant
    private var order: [String] = []
    private var periods: [String: Period] = [:]
    private var shareSeconds = 0
    private var capturedFPS = 0.0
    private var restartsAtStart: Int?
    private var restarts = 0

    init(startedAt: Instant) {
        started = startedAt
    }

    /// One second's figures. Returns the reports, receivers' first and the share's last, when one is due.
    mutating func sample(_ samples: [Sample], capturedFPS fps: Double, captureRestarts: Int, now: Instant) -> [[(String, JSONValue)]] {
        shareSeconds += 1
        capturedFPS += fps
        restartsAtStart = restartsAtStart ?? captureRestarts
        restarts = captureRestarts
        let present = Set(samples.map(\.id))
        order.removeAll { !present.contains($0) }
        for sample in samples {
            if periods[sample.id] == nil {
                periods[sample.id] = Period(sample, at: now)
                order.append(sample.id)
            }
            periods[sample.id]?.add(sample, at: now)
        }
        periods = periods.filter { present.contains($0.key) }
        guard now - started >= Self.interval else { return [] }
        let reports = order.compactMap { id in periods[id].map { $0.report(id) } } + [shareReport]
        // The next period takes up where this one ended, so nothing between two reports is lost.
        let (carried, kept) = (periods.mapValues(Period.init(after:)), order)
        self = QualityReporter(startedAt: now)
        (periods, order) = (carried, kept)
        return reports
    }

    private var shareReport: [(String, JSONValue)] {
        let all = order.compactMap { periods[$0] }
        let made = ShareStatus.keyframesAcross(all.map { ($0.last.layer, $0.keyframesMade) })
        let asked = all.reduce(0) { $0 + $1.keyframesAsked }
        let stopped = all.reduce(0) { $0 + $1.screenStopped }
        let freezes = all.reduce(0) { $0 + $1.freezes }
        let bitrate = all.reduce(0) { $0 + $1.meanBitrate }
        let captured = shareSeconds > 0 ? capturedFPS / Double(shareSeconds) : 0
        let restarted = restarts - (restartsAtStart ?? restarts)
        let text = "The share, last \(shareSeconds) s: captured at \(Self.rate(captured)) fps, to \(all.count) receiver\(all.count == 1 ? "" : "s"), "
            + "\(ShareStatus.megabits(bitrate)) in all; keyframes \(made) made, \(asked) asked for; "
            + "capture restarted \(restarted) time\(restarted == 1 ? "" : "s"); screen stopped leaving \(stopped), freezes reported \(freezes)"
        return [("scope", .string("share")), ("seconds", .int(shareSeconds)), ("receivers", .int(all.count)),
                ("capturedFps", .double(captured)), ("bitrate", .int(bitrate)),
                ("keyframesMade", .int(made)), ("keyframesAsked", .int(asked)), ("captureRestarts", .int(restarted)),
                ("screenStopped", .int(stopped)), ("freezes", .int(freezes)), ("text", .string(text))]
    }

    static func rate(_ fps: Double) -> String {
        String((fps * 10).rounded() / 10)
    }
}

extension QualityReporter.Counts {
    init(_ sample: QualityReporter.Sample, at now: Instant) {
        layer = sample.status.layer
        keyframesMade = sample.status.keyframesMade
        keyframesAsked = sample.status.keyframesAsked
        tally = sample.tally
        frozen = sample.tally.frozen(at: now)
    }
}

extension QualityReporter.Period {
    mutating func add(_ sample: QualityReporter.Sample, at now: Instant) {
        last = QualityReporter.Counts(sample, at: now)
        seconds += 1
        fps += sample.status.fps
        bitrate += sample.status.bitrate
        if sample.status.limitation != .none { limited[sample.status.limitation, default: 0] += 1 }
        let (w, h) = (sample.status.width, sample.status.height)
        guard w > 0 && h > 0 else { return }
        if let i = sizes.firstIndex(where: { $0.width == w && $0.height == h }) {
            sizes[i].seconds += 1
        } else if sizes.count < QualityReporter.sizesKept {
            sizes.append((w, h, 1))
        }
    }

    var keyframesMade: Int { max(0, last.keyframesMade - first.keyframesMade) }
    var keyframesAsked: Int { max(0, last.keyframesAsked - first.keyframesAsked) }
    var screenStopped: Int { last.tally.screenStopped - first.tally.screenStopped }
    var freezes: Int { last.tally.freezes - first.tally.freezes + (first.tally.frozenSince != nil ? 1 : 0) }
    var meanBitrate: Int { seconds > 0 ? bitrate / seconds : 0 }

    /// Steps taken in the period, by name.
    var steps: [(String, Int)] {
        last.tally.steps.compactMap { step, count in
            let taken = count - (first.tally.steps[step] ?? 0)
            return taken > 0 ? (step.rawValue, taken) : nil
        }.sorted { $0.0 < $1.0 }
    }

    func report(_ id: String) -> [(String, JSONValue)] {
        let meanFPS = seconds > 0 ? fps / Double(seconds) : 0
        let most = sizes.max { $0.seconds < $1.seconds }
        let frozenSeconds = (last.frozen - first.frozen).inSeconds
        let bandwidth = limited[.bandwidth] ?? 0
        let cpu = limited[.cpu] ?? 0
        var words = ["\(name), last \(seconds) s: " + (most.map { "\($0.width)×\($0.height)" } ?? "nothing sent")
                     + " at \(QualityReporter.rate(meanFPS)) fps, \(ShareStatus.megabits(meanBitrate))"]
        let limits = [(bandwidth, "bandwidth"), (cpu, "CPU")].filter { $0.0 > 0 }.map { "limited by \($0.1) for \($0.0) s" }
        words.append(limits.isEmpty ? "nothing held it back" : limits.joined(separator: ", "))
        words.append("keyframes \(keyframesMade) made, \(keyframesAsked) asked for")
        words.append("screen stopped leaving \(screenStopped) time\(screenStopped == 1 ? "" : "s")")
        words.append(freezes == 0 ? "no freezes reported" : "\(freezes) freeze\(freezes == 1 ? "" : "s") reported, \(QualityReporter.rate(frozenSeconds)) s frozen")
        if !steps.isEmpty { words.append("steps: " + steps.map { "\($0.0) \($0.1)" }.joined(separator: ", ")) }
        return [
            ("receiver", .string(id)), ("seconds", .int(seconds)),
            ("width", .int(most?.width ?? 0)), ("height", .int(most?.height ?? 0)),
            ("sizes", .array(sizes.map { .object([("width", .int($0.width)), ("height", .int($0.height)), ("seconds", .int($0.seconds))]) })),
            ("fps", .double(meanFPS)), ("bitrate", .int(meanBitrate)),
            ("limitedBy", .object([("bandwidth", .int(bandwidth)), ("cpu", .int(cpu))])),
            ("keyframesMade", .int(keyframesMade)), ("keyframesAsked", .int(keyframesAsked)),
            ("screenStopped", .int(screenStopped)), ("steps", .object(steps.map { ($0.0, .int($0.1)) })),
            ("freezes", .int(freezes)), ("frozenSeconds", .double(frozenSeconds)),
            ("text", .string(words.joined(separator: "; "))),
        ]
    }
}
