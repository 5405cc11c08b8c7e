import Media
import Testing
@testable import Recovery

/// What the rules allow, checked against everything one receiver's ladder did.
private struct ReceiverRecord {
    var reportedAt: Int?
    var lastStep: Int?
    var lastFramesLeft: Int?
    var lastRebuild: Int?
    var gaveUp = false
}

/// Three receivers over two hours of random reports, clears, frames that
/// leave or do not, and a sender whose screen sometimes stops leaving.
@Test(arguments: [1, 2, 3, 42, 2024] as [UInt64])
func randomTimeline_neverBreaksARateLimit(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let names = ["Vicky", "Samuel", "Paul"]
    var run = LadderTimeline(receivers: names)
    var records = names.map { _ in ReceiverRecord() }
    var lastShareAgain: Int?
    var shareAgains = 0

    for second in 0...7200 {
        for index in names.indices {
            let reported = records[index].reportedAt != nil
            let plan = LadderTimeline.Second(
                report: !reported && Double.random(in: 0..<1, using: &random) < 0.02,
                clear: reported && Double.random(in: 0..<1, using: &random) < 0.03,
                framesLeave: Double.random(in: 0..<1, using: &random) < 0.6,
                screenStoppedLeaving: Double.random(in: 0..<1, using: &random) < 0.1)
            let before = run.actions[index].count
            run.step(second, receiver: index, plan)
            if plan.framesLeave { records[index].lastFramesLeft = second }

            for (_, action) in run.actions[index][before...] {
                var record = records[index]
                switch action {
                case .notice(.recovering, _):
                    #expect(record.reportedAt == nil, "a second ladder started for one report")
                    record.reportedAt = second
                    record.lastStep = second
                    record.gaveUp = false
                case .rebuildReceiver:
                    #expect(record.reportedAt != nil, "rebuilt with no report standing")
                    if let last = record.lastRebuild {
                        #expect(second - last >= 60, "\(names[index]) rebuilt at \(last) and \(second)")
                    }
                    #expect((record.lastFramesLeft ?? -1) > (record.lastStep ?? -1),
                            "\(names[index]) rebuilt at \(second) with no frames left since the step at \(record.lastStep ?? -1)")
                    record.lastRebuild = second
                    record.lastStep = second
                case .shareAgain:
                    #expect(record.reportedAt != nil, "shared again with no report standing")
                    if let last = lastShareAgain {
                        #expect(second - last >= 300, "shared again at \(last) and \(second)")
                    }
                    #expect((record.lastFramesLeft ?? -1) > (record.lastStep ?? -1),
                            "\(names[index]) shared again at \(second) with no frames left since the last step")
                    lastShareAgain = second
                    shareAgains += 1
                    record.lastStep = second
                case .notice(.couldNotRestore, _):
                    let reportedAt = record.reportedAt ?? second
                    #expect(second - reportedAt <= 30, "gave up \(second - reportedAt) s after the report")
                    record.gaveUp = true
                case .clearNotice:
                    record.reportedAt = nil
                    record.gaveUp = false
                case .sendKeyframe:
                    #expect(record.reportedAt != nil || plan.report, "keyframe with no report standing")
                    #expect(!record.gaveUp, "keyframe after giving up")
                default:
                    break
                }
                records[index] = record
            }
            // A report that stands is given up on within 30 s.
            if let reportedAt = records[index].reportedAt, second - reportedAt > 30 {
                #expect(records[index].gaveUp, "\(names[index]) reported at \(reportedAt), not given up on at \(second)")
            }
        }
    }
    // The timeline is busy enough to have tested the share-again limit.
    #expect(shareAgains >= 2)
}
