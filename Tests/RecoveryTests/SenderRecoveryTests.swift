import Media
import Testing
@testable import Recovery

/// A receiver's connection watchdog and stall ladder together, wired as the
/// I/O layer wires them: each second the watchdog is ticked first, and its
/// `screenStoppedLeaving` goes to the ladder's tick.
private struct Receiver {
    var watchdog: ConnectionWatchdog
    var ladder = StallLadder(receiver: "Vicky")
    var budget = ShareAgainBudget()
    var counters = ConnectionWatchdog.Counters()
    var lines: [String] = []

    init(connectedAt: Int) {
        watchdog = ConnectionWatchdog(connectedAt: at(connectedAt))
    }

    mutating func second(_ s: Int, report: Bool = false, sends: Bool, linkIsLimit: Bool = false) {
        counters.framesIn += 30
        if sends {
            counters.framesEncoded += 30
            counters.framesSent += 30
            ladder.framesLeft(now: at(s))
        }
        counters.linkIsLimit = linkIsLimit
        if report { lines += ladder.stallReported(now: at(s)).map { line(s, $0) } }
        lines += watchdog.tick(now: at(s), counters: counters).map { "\(line(s, $0)) (watchdog)" }
        lines += ladder.tick(now: at(s), screenStoppedLeaving: watchdog.screenStoppedLeaving, budget: &budget)
            .filter { if case .sendKeyframe = $0 { false } else { true } }
            .map { line(s, $0) }
    }
}

@Test func stallWhileLinkIsTheLimit_noFullerSenderSideStep() {
    // Connected at 0; from 20 the link holds everything back and Vicky
    // reports at 24. The watchdog takes no step (the link explains it);
    // nothing has left since the report, so the ladder's rebuild and
    // share-again are passed over and the give-up comes at 50.
    var receiver = Receiver(connectedAt: 0)
    for s in 1...60 {
        receiver.second(s, report: s == 24, sends: s < 20, linkIsLimit: s >= 20)
    }
    #expect(!receiver.lines.contains { $0.hasSuffix("(watchdog)") })
    #expect(receiver.lines == [
        "24: keyframe", "24: notice Vicky's view of your screen stalled — recovering",
        "40: passed rebuild", "50: passed shareAgain",
        "50: notice Couldn't restore Vicky's view — try Stop and Share again",
    ])
}

@Test func stallWhileLinkIsTheLimitButFramesTrickle_ladderStillClimbs() {
    // The link is the limit throughout but some frames still leave every
    // other second; Vicky reports at 24: no watchdog step, the ladder's own
    // steps on time (rebuild at 30, share-again at 40).
    var receiver = Receiver(connectedAt: 0)
    for s in 1...60 {
        receiver.second(s, report: s == 24, sends: s < 20 || s % 2 == 0, linkIsLimit: s >= 20)
    }
    #expect(!receiver.lines.contains { $0.hasSuffix("(watchdog)") })
    #expect(receiver.lines.contains("30: rebuild"))
    #expect(receiver.lines.contains("40: shareAgain"))
}

@Test func reportDuringFirstTenSeconds_keyframesAtOnce_watchdogWaitsForTenSeconds() {
    // Connected at 0; nothing ever encoded or sent. Vicky reports at 5: at 5
    // the keyframe and the notice (a report does not wait for the grace).
    // The watchdog's own keyframe comes at 10, not 9, its fresh encoder at
    // 13 and new transceiver at 16; the ladder leaves those to it.
    var receiver = Receiver(connectedAt: 0)
    for s in 1...16 {
        receiver.second(s, report: s == 5, sends: false)
    }
    #expect(receiver.lines == [
        "5: keyframe", "5: notice Vicky's view of your screen stalled — recovering",
        "10: keyframe (watchdog)", "13: freshEncoder (watchdog)", "16: newTransceiver (watchdog)",
    ])
}
