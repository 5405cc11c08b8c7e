import Media
import Testing
@testable import Recovery

@Test func history_recordsEachStepWithTimeReceiverAndReason() {
    // At 0 Vicky reports; at 6 she is rebuilt.
    var history = LadderHistory()
    var ladder = StallLadder(receiver: "Vicky")
    var budget = ShareAgainBudget()
    history.record(ladder.stallReported(now: at(0)), for: "Vicky", at: at(0))
    ladder.framesLeft(now: at(5))
    history.record(ladder.tick(now: at(6), screenStoppedLeaving: false, budget: &budget), for: "Vicky", at: at(6))
    #expect(history.entries.map(\.step) == [.keyframe, .notice, .rebuild, .notice])
    #expect(history.entries.map(\.at) == [at(0), at(0), at(6), at(6)])
    #expect(history.entries.allSatisfy { $0.subject == "Vicky" && !$0.reason.isEmpty })
    #expect(history.lines[2] == "6.0s Vicky rebuild: Vicky still reports a stall 6 s after the first keyframe")
}

@Test func history_keepsTheLastHundredEntries() {
    var history = LadderHistory()
    var watchdog = CaptureWatchdog(startedAt: at(0))
    for second in stride(from: 3, through: 3 * 130, by: 3) {
        history.record(watchdog.tick(now: at(second)), for: "capture", at: at(second))
    }
    #expect(history.entries.count == LadderHistory.capacity)
    #expect(history.dropped == 30)
    #expect(history.entries.first?.at == at(3 * 31))
    #expect(history.entries.last?.at == at(3 * 130))
}

@Test func giveUpNotice_isRecordedAsGivingUp() {
    let action = StallLadder.Action.notice(.couldNotRestore(receiver: "Samuel"), reason: "no steps left")
    #expect(action.step == .gaveUp)
}
