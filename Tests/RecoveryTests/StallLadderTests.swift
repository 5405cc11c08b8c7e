import Media
import Testing
@testable import Recovery

/// A receiver whose view stays stalled, with frames leaving every second:
/// the whole ladder, each step at its exact second.
@Test(arguments: [0, 3, 17])
func stallReportedAfterKeyframe_rebuildsAtSixSeconds_sharesAgainAtSixteen_givesUpAtTwentySix(reportedAt r: Int) {
    // At r report: keyframe and "recovering"; keyframes again every 2 s;
    // at r+6 rebuild and "Restarting…"; at r+16 share again for everyone;
    // at r+26 "Couldn't restore…"; then nothing more while it stays reported.
    var timeline = LadderTimeline()
    timeline.run(0...(r + 60)) { .init(report: $0 == r) }
    #expect(timeline.lines[0] == [
        "\(r): keyframe",
        "\(r): notice Vicky's view of your screen stalled — recovering",
        "\(r + 2): keyframe",
        "\(r + 4): keyframe",
        "\(r + 6): rebuild",
        "\(r + 6): notice Restarting your share for Vicky…",
        "\(r + 8): keyframe",
        "\(r + 10): keyframe",
        "\(r + 12): keyframe",
        "\(r + 14): keyframe",
        "\(r + 16): shareAgain",
        "\(r + 18): keyframe",
        "\(r + 20): keyframe",
        "\(r + 22): keyframe",
        "\(r + 24): keyframe",
        "\(r + 26): notice Couldn't restore Vicky's view — try Stop and Share again",
    ])
    guard case .gaveUp = timeline.ladders[0].state else {
        Issue.record("expected gaveUp, got \(timeline.ladders[0].state)")
        return
    }
}

@Test func noticeTexts_areSpecWordsExactly() {
    // docs/behaviour.md §5.5 uses an ASCII apostrophe, an em dash and a one-character ellipsis.
    #expect(StallNotice.recovering(receiver: "Vicky").text == "Vicky\u{27}s view of your screen stalled \u{2014} recovering")
    #expect(StallNotice.restarting(receiver: "Samuel").text == "Restarting your share for Samuel\u{2026}")
    #expect(StallNotice.couldNotRestore(receiver: "Samuel").text
        == "Couldn\u{27}t restore Samuel\u{27}s view \u{2014} try Stop and Share again")
}

/// A report that clears at `clearAt` stands the ladder down whatever rung it is on.
@Test(arguments: [1, 6, 9, 16, 20, 26, 40])
func reportClears_standsDownAndClearsNotice(clearAt c: Int) {
    // At 0 report; at c the receiver decodes again: the notice goes, and
    // nothing more happens (no keyframe, no rebuild, no share-again).
    var timeline = LadderTimeline()
    timeline.run(0...90) { .init(report: $0 == 0, clear: $0 == c) }
    let afterClear = timeline.lines[0].filter { Int($0.prefix(while: { $0 != ":" }))! >= c }
    #expect(afterClear == ["\(c): clearNotice"])
    #expect(timeline.ladders[0].state == .idle)
}

@Test func repeatedReports_changeNothing() {
    // The receiver repeats its report every second: still one ladder.
    var once = LadderTimeline()
    once.run(0...40) { .init(report: $0 == 0) }
    var repeated = LadderTimeline()
    repeated.run(0...40) { _ in .init(report: true) }
    #expect(repeated.lines == once.lines)
}

@Test func clearWithoutReport_doesNothing() {
    var ladder = StallLadder(receiver: "Vicky")
    #expect(ladder.stallCleared(now: at(3)).isEmpty)
}

/// Timelines where a limit holds a step back; only the steps are listed
/// (the repeated keyframes are left out).
struct HeldStep: Sendable, CustomTestStringConvertible {
    let name: String
    let script: @Sendable (Int) -> LadderTimeline.Second
    let expected: [String]
    var testDescription: String { name }
}

let heldSteps: [HeldStep] = [
    // At 0 report; at 6 rebuild; at 8 cleared. At 30 reported again: a rebuild
    // would be due at 36, but the last was 30 s before, so it waits until the
    // share-again is due at 46 and is passed over; at 46 share again; at 56 give up.
    HeldStep(
        name: "rebuild at most once a minute per person",
        script: { .init(report: $0 == 0 || $0 == 30, clear: $0 == 8) },
        expected: [
            "0: keyframe", "0: notice Vicky's view of your screen stalled — recovering",
            "6: rebuild", "6: notice Restarting your share for Vicky…",
            "8: clearNotice",
            "30: keyframe", "30: notice Vicky's view of your screen stalled — recovering",
            "46: passed rebuild",
            "46: shareAgain",
            "56: notice Couldn't restore Vicky's view — try Stop and Share again",
        ]),
    // At 0 report; at 6 rebuild; at 8 cleared. At 66 reported again: the last
    // rebuild was 66 s before, so at 72 it is rebuilt again.
    HeldStep(
        name: "rebuild again a minute later",
        script: { .init(report: $0 == 0 || $0 == 66, clear: $0 == 8) },
        expected: [
            "0: keyframe", "0: notice Vicky's view of your screen stalled — recovering",
            "6: rebuild", "6: notice Restarting your share for Vicky…",
            "8: clearNotice",
            "66: keyframe", "66: notice Vicky's view of your screen stalled — recovering",
            "72: rebuild", "72: notice Restarting your share for Vicky…",
            "82: shareAgain",
            "92: notice Couldn't restore Vicky's view — try Stop and Share again",
        ]),
    // At 0 report; full ladder, shared again at 16; cleared at 30. Reported
    // again at 100: rebuilt at 106; the share-again due at 116 is within five
    // minutes of 16, so it waits and is passed over at 126, with the give-up.
    // Reported again at 400: shared again at 416, more than five minutes on.
    HeldStep(
        name: "share again at most once every five minutes",
        script: { .init(report: [0, 100, 400].contains($0), clear: [30, 200].contains($0)) },
        expected: [
            "0: keyframe", "0: notice Vicky's view of your screen stalled — recovering",
            "6: rebuild", "6: notice Restarting your share for Vicky…",
            "16: shareAgain",
            "26: notice Couldn't restore Vicky's view — try Stop and Share again",
            "30: clearNotice",
            "100: keyframe", "100: notice Vicky's view of your screen stalled — recovering",
            "106: rebuild", "106: notice Restarting your share for Vicky…",
            "126: passed shareAgain",
            "126: notice Couldn't restore Vicky's view — try Stop and Share again",
            "200: clearNotice",
            "400: keyframe", "400: notice Vicky's view of your screen stalled — recovering",
            "406: rebuild", "406: notice Restarting your share for Vicky…",
            "416: shareAgain",
            "426: notice Couldn't restore Vicky's view — try Stop and Share again",
        ]),
    // At 0 report; no frames leave at all: the rebuild waits from 6 and is
    // passed over at 16, the share-again waits and is passed over at 26, and
    // the give-up notice still comes at 26.
    HeldStep(
        name: "no step while no frames leave, give-up still on time",
        script: { .init(report: $0 == 0, framesLeave: false) },
        expected: [
            "0: keyframe", "0: notice Vicky's view of your screen stalled — recovering",
            "16: passed rebuild",
            "26: passed shareAgain",
            "26: notice Couldn't restore Vicky's view — try Stop and Share again",
        ]),
    // At 0 report; frames leave again from 9: rebuilt at 9, shared again 10 s
    // later at 19, and the give-up 10 s after that at 29.
    HeldStep(
        name: "a step held for frames is taken when they leave, the rest follow it",
        script: { .init(report: $0 == 0, framesLeave: $0 >= 9) },
        expected: [
            "0: keyframe", "0: notice Vicky's view of your screen stalled — recovering",
            "9: rebuild", "9: notice Restarting your share for Vicky…",
            "19: shareAgain",
            "29: notice Couldn't restore Vicky's view — try Stop and Share again",
        ]),
    // At 0 report; frames leave only at 15 and 27: rebuilt at 15, shared
    // again at 27 (due at 25, held for frames), and the give-up comes at the
    // 30 s deadline rather than at 37.
    HeldStep(
        name: "give-up notice never later than 30 s after the report",
        script: { .init(report: $0 == 0, framesLeave: $0 == 15 || $0 == 27) },
        expected: [
            "0: keyframe", "0: notice Vicky's view of your screen stalled — recovering",
            "15: rebuild", "15: notice Restarting your share for Vicky…",
            "27: shareAgain",
            "30: notice Couldn't restore Vicky's view — try Stop and Share again",
        ]),
    // At 0 report while the sender's own screen has stopped leaving for this
    // connection (the connection watchdog's to mend): keyframes and the
    // notice, no rebuild or share-again of the ladder's own, give-up at 26.
    HeldStep(
        name: "sender's own screen stopped: keyframes only, watchdog takes the fuller steps",
        script: { .init(report: $0 == 0, screenStoppedLeaving: true) },
        expected: [
            "0: keyframe", "0: notice Vicky's view of your screen stalled — recovering",
            "16: passed rebuild",
            "26: passed shareAgain",
            "26: notice Couldn't restore Vicky's view — try Stop and Share again",
        ]),
]

@Test(arguments: heldSteps)
func limitedStep_waitsOrIsPassedOver(_ timeline: HeldStep) {
    var run = LadderTimeline()
    run.run(0...500, timeline.script)
    #expect(run.steps() == timeline.expected)
}

@Test func passedStep_saysWhy() {
    // At 0 report, no frames leave; at 16 the rebuild is passed over for that reason.
    var run = LadderTimeline()
    run.run(0...16) { .init(report: $0 == 0, framesLeave: false) }
    let passed = run.actions[0].first { if case .stepPassed = $0.action { true } else { false } }
    guard let passed, passed.second == 16, case .stepPassed(.rebuild, let reason) = passed.action else {
        Issue.record("expected the rebuild passed over, got \(run.lines[0])")
        return
    }
    #expect(reason.contains("no frames have left for Vicky"))
}

@Test func twoReceiversStallingAtOnce_oneRebuildEach_oneShareAgain() {
    // At 0 both Vicky and Samuel report; at 6 each is rebuilt; at 16 Vicky's
    // ladder shares everyone again, and Samuel's counts that as its own;
    // at 26 both are told the view could not be restored.
    var run = LadderTimeline(receivers: ["Vicky", "Samuel"])
    for second in 0...60 {
        for receiver in 0..<2 {
            run.step(second, receiver: receiver, .init(report: second == 0))
        }
    }
    #expect(run.steps(of: 0) == [
        "0: keyframe", "0: notice Vicky's view of your screen stalled — recovering",
        "6: rebuild", "6: notice Restarting your share for Vicky…",
        "16: shareAgain",
        "26: notice Couldn't restore Vicky's view — try Stop and Share again",
    ])
    #expect(run.steps(of: 1) == [
        "0: keyframe", "0: notice Samuel's view of your screen stalled — recovering",
        "6: rebuild", "6: notice Restarting your share for Samuel…",
        "16: passed shareAgain",
        "26: notice Couldn't restore Samuel's view — try Stop and Share again",
    ])
    #expect(run.budget.lastAt == at(16))
    #expect(run.budget.lastReceiver == "Vicky")
}

@Test func secondReceiverStallingLater_countsTheEarlierShareAgain() {
    // At 0 Vicky reports, at 2 Samuel: rebuilt at 6 and 8; Vicky's share-again
    // at 16 covers Samuel, whose own would be due at 18; both give up at 26.
    var run = LadderTimeline(receivers: ["Vicky", "Samuel"])
    for second in 0...60 {
        run.step(second, receiver: 0, .init(report: second == 0))
        run.step(second, receiver: 1, .init(report: second == 2))
    }
    #expect(run.steps(of: 1) == [
        "2: keyframe", "2: notice Samuel's view of your screen stalled — recovering",
        "8: rebuild", "8: notice Restarting your share for Samuel…",
        "18: passed shareAgain",
        "26: notice Couldn't restore Samuel's view — try Stop and Share again",
    ])
    #expect(run.actions.joined().filter { if case .shareAgain = $0.action { true } else { false } }.count == 1)
}
