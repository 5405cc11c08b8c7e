import Events
import Media
import Recovery
@testable import ScreenShare
import Sending
import Testing

/// The 30 s quality report (docs/behaviour.md §10.2), fed once a second as serve's heartbeat feeds it.
struct QualityReporterTests {
    func status(_ width: Int, _ height: Int, fps: Double = 30, bitrate: Int = 1_000_000, limited: ShareStatus.Limitation = .none,
                made: Int = 0, asked: Int = 0) -> ShareStatus {
        var s = ShareStatus()
        (s.width, s.height, s.fps, s.bitrate, s.limitation, s.keyframesMade, s.keyframesAsked) = (width, height, fps, bitrate, limited, made, asked)
        return s
    }

    func field(_ report: [(String, JSONValue)], _ name: String) -> JSONValue? {
        report.first { $0.0 == name }?.1
    }

    @Test func everyThirtySeconds_whatWasSentWhatHeldItBackAndWhatRecoveryDid() {
        var reporter = QualityReporter(startedAt: .zero)
        var tally = RecoveryTally()
        var reports: [[(String, JSONValue)]] = []
        for t in 1...30 {
            let now = Instant.seconds(Double(t))
            // 1280×720 for 20 s, then 640×360 limited by bandwidth; a keyframe every 10 s, one asked for at 12 s.
            let st = t <= 20 ? status(1280, 720, fps: 30, made: t / 10, asked: t >= 12 ? 1 : 0)
                : status(640, 360, fps: 15, bitrate: 500_000, limited: .bandwidth, made: t / 10, asked: 1)
            // The receiver reports a freeze from 10 s to 14 s; the ladder sends two keyframes and its notice.
            if t == 10 {
                tally.stall(reported: true, at: now)
                tally.steps = [.keyframe: 1, .notice: 1]
            }
            if t == 12 { tally.steps[.keyframe] = 2 }
            if t == 14 { tally.stall(reported: false, at: now) }
            let samples = [QualityReporter.Sample(id: "bob", name: "Bob", status: st, tally: tally)]
            reports = reporter.sample(samples, capturedFPS: 30, captureRestarts: t >= 25 ? 1 : 0, now: now)
            if t < 29 { #expect(reports.isEmpty, "no report before 30 s (t = \(t))") }
        }
        #expect(reports.count == 2)
        let bob = reports[0]
        #expect(field(bob, "receiver") == .string("bob") && field(bob, "seconds") == .int(30))
        #expect(field(bob, "width") == .int(1280) && field(bob, "height") == .int(720))
        #expect(field(bob, "fps") == .double(25) && field(bob, "bitrate") == .int(833_333))
        #expect(field(bob, "limitedBy") == .object([("bandwidth", .int(10)), ("cpu", .int(0))]))
        #expect(field(bob, "keyframesMade") == .int(3) && field(bob, "keyframesAsked") == .int(1))
        #expect(field(bob, "freezes") == .int(1) && field(bob, "frozenSeconds") == .double(4))
        #expect(field(bob, "steps") == .object([("keyframe", .int(2)), ("notice", .int(1))]))
        #expect(field(bob, "sizes") == .array([.object([("width", .int(1280)), ("height", .int(720)), ("seconds", .int(20))]),
                                              .object([("width", .int(640)), ("height", .int(360)), ("seconds", .int(10))])]))
        #expect(field(bob, "text")?.stringValue == "Bob, last 30 s: 1280×720 at 25.0 fps, 0.8 Mbit/s; limited by bandwidth for 10 s; "
                + "keyframes 3 made, 1 asked for; screen stopped leaving 0 times; 1 freeze reported, 4.0 s frozen; steps: keyframe 2, notice 1")
        let share = reports[1]
        #expect(field(share, "scope") == .string("share") && field(share, "receivers") == .int(1))
        #expect(field(share, "captureRestarts") == .int(1) && field(share, "freezes") == .int(1) && field(share, "keyframesMade") == .int(3))
    }

    @Test func theNextPeriodStartsAfresh_andAFreezeStillOpenCountsInIt() {
        var reporter = QualityReporter(startedAt: .zero)
        var tally = RecoveryTally()
        tally.stall(reported: true, at: .seconds(25))
        var last: [[(String, JSONValue)]] = []
        for t in 1...60 {
            let samples = [QualityReporter.Sample(id: "bob", name: "Bob", status: status(1920, 1080, made: 5), tally: tally)]
            let reports = reporter.sample(samples, capturedFPS: 30, captureRestarts: 0, now: .seconds(Double(t)))
            if !reports.isEmpty { last = reports }
        }
        #expect(field(last[0], "seconds") == .int(30) && field(last[0], "keyframesMade") == .int(0))
        #expect(field(last[0], "freezes") == .int(1) && field(last[0], "frozenSeconds") == .double(30))
    }

    @Test func aReceiverThatLeaves_isLeftOut_andOneThatJoins_coversItsOwnSeconds() {
        var reporter = QualityReporter(startedAt: .zero)
        var reports: [[(String, JSONValue)]] = []
        for t in 1...30 {
            var samples: [QualityReporter.Sample] = []
            if t <= 10 { samples.append(.init(id: "alice", name: "Alice", status: status(1280, 720), tally: RecoveryTally())) }
            if t > 20 { samples.append(.init(id: "carol", name: "Carol", status: status(1280, 720), tally: RecoveryTally())) }
            reports = reporter.sample(samples, capturedFPS: 30, captureRestarts: 0, now: .seconds(Double(t)))
        }
        #expect(reports.map { field($0, "receiver") ?? field($0, "scope") } == [.string("carol"), .string("share")])
        #expect(field(reports[0], "seconds") == .int(10))
    }
}
