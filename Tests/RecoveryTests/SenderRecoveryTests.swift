import Media
import Testing
@testable import Recovery

/// The sender's machines as `SenderRecovery` puts them together — the order
/// of the ticks, the counters each sees, the share-again budget they share —
/// driven second by second with the counters a connection would give.
private struct Share {
    var recovery = SenderRecovery(startedAt: at(0))
    var counters: [String: ConnectionWatchdog.Counters] = [:]
    var lines: [String] = []

    init(receivers: [String: String] = ["vicky": "Vicky"]) {
        for (id, name) in receivers {
            recovery.attach(id, name: name, now: at(0))
            counters[id] = ConnectionWatchdog.Counters()
        }
    }

    /// What one receiver's connection does in one second.
    struct Second {
        var takesIn = true
        var encodes = true
        var sends = true
        var linkIsLimit = false
        var report: SenderRecovery.Report?
    }

    mutating func second(_ s: Int, capture: Bool = true, _ plans: [String: Second]) {
        if capture { recovery.captureActive(frame: true, now: at(s)) }
        for (id, plan) in plans.sorted(by: { $0.key < $1.key }) {
            if plan.takesIn { counters[id]!.framesIn += 30 }
            if plan.encodes { counters[id]!.framesEncoded += 30 }
            if plan.sends { counters[id]!.framesSent += 30 }
            counters[id]!.linkIsLimit = plan.linkIsLimit
            if let report = plan.report { record(s, recovery.report(report, from: id, now: at(s)) ?? []) }
        }
        record(s, recovery.tick(now: at(s), counters: counters))
    }

    mutating func run(_ seconds: ClosedRange<Int>, capture: (Int) -> Bool = { _ in true }, _ plan: (Int) -> Second) {
        for s in seconds { second(s, capture: capture(s), ["vicky": plan(s)]) }
    }

    /// Timeline lines without the ladder's repeated keyframes: "24: keyframe",
    /// "20: keyframe (watchdog)", "8: restartCapture".
    mutating func record(_ s: Int, _ actions: [SenderRecovery.Action]) {
        for action in actions {
            switch action {
            case .restartCapture: lines.append("\(s): restartCapture")
            case .endCapture(let reason): lines.append("\(s): endCapture \(reason)")
            case .connection(let id, let a): lines.append("\(s): \(describe(a)) (\(id) watchdog)")
            case .ladder(_, .sendKeyframe(let reason)) where reason.contains("again"): break
            case .ladder(let id, let a): lines.append("\(s): \(describe(a))" + (id == "vicky" ? "" : " (\(id))"))
            case .restart(let id, let a): lines.append("\(s): \(describe(a)) (\(id) restarted)")
            }
        }
    }
}

@Test func stallWhileTheLinkHoldsEverythingBack_noSenderSideStep_ladderPassesOverItsSteps() {
    // Connected at 0; from 20 frames are encoded but wait on the link (none
    // sent, packets queued), and Vicky reports at 24. The watchdog takes no
    // step (the link explains it); nothing has left since the report, so the
    // rebuild and the share-again are passed over and the give-up comes at 50.
    var share = Share()
    share.run(1...60) { .init(sends: $0 < 20, linkIsLimit: $0 >= 20, report: $0 == 24 ? .stalled : nil) }
    #expect(share.lines == [
        "24: keyframe", "24: notice Vicky's view of your screen stalled — recovering",
        "40: passed rebuild", "50: passed shareAgain",
        "50: notice Couldn't restore Vicky's view — try Stop and Share again",
    ])
}

@Test func stallWhileTheLinkIsShortButFramesTrickle_ladderClimbsOnTime() {
    // The link holds frames back from 20 but some still leave every other
    // second; Vicky reports at 24: no watchdog step, the ladder's own steps
    // on time (rebuild at 30, share-again at 40).
    var share = Share()
    share.run(1...60) { .init(sends: $0 < 20 || $0 % 2 == 0, linkIsLimit: $0 >= 20, report: $0 == 24 ? .stalled : nil) }
    #expect(!share.lines.contains { $0.hasSuffix("watchdog)") })
    #expect(share.lines.contains("30: rebuild"))
    #expect(share.lines.contains("40: shareAgain"))
}

@Test func reportDuringTheFirstTenSeconds_keyframesAtOnce_watchdogWaitsForItsGrace() {
    // Connected at 0; nothing ever encoded or sent. Vicky reports at 5: at 5
    // the keyframe and the notice (a report does not wait for the grace).
    // The watchdog's own keyframe comes at 10, not 9, its fresh encoder at
    // 13 and new transceiver at 16; the ladder leaves those to it.
    var share = Share()
    share.run(1...16) { .init(encodes: false, sends: false, report: $0 == 5 ? .stalled : nil) }
    #expect(share.lines == [
        "5: keyframe", "5: notice Vicky's view of your screen stalled — recovering",
        "10: keyframe (vicky watchdog)", "13: freshEncoder (vicky watchdog)", "16: newTransceiver (vicky watchdog)",
    ])
}

@Test func encoderThatStopsOnAShortLink_isMendedFiveSecondsLater() {
    // A short link throughout (the receiver's estimate is below the cap, and
    // until 17 the last packets still wait in the queue); the encoder stops
    // at 15 while frames keep coming in. Silence in encoding is never the
    // link's: the keyframe at 20, the fresh encoder at 23, and frames
    // encoded and sent again from 24 stand the watchdog down.
    var share = Share()
    share.run(1...40) { s in
        let works = s <= 15 || s >= 24
        return .init(encodes: works, sends: works, linkIsLimit: s < 17 || s >= 24)
    }
    #expect(share.lines == ["20: keyframe (vicky watchdog)", "23: freshEncoder (vicky watchdog)", "24: stoodDown (vicky watchdog)"])
}

@Test func stallFromAStoppedEncoder_ladderWaitsForTheWatchdog_thenClears() {
    // The encoder stops at 15; Vicky reports at 19. The ladder sends its
    // keyframes and notice; the watchdog's steps follow (20, 23), and the
    // rebuild due at 25 is not taken while the screen has stopped leaving.
    // Frames leave again from 24 and Vicky clears at 25: no rebuild, nothing
    // passed over, no give-up.
    var share = Share()
    share.run(1...50) { s in
        let works = s <= 15 || s >= 24
        return .init(encodes: works, sends: works, report: s == 19 ? .stalled : (s == 25 ? .cleared : nil))
    }
    #expect(share.lines == [
        "19: keyframe", "19: notice Vicky's view of your screen stalled — recovering",
        "20: keyframe (vicky watchdog)", "23: freshEncoder (vicky watchdog)", "24: stoodDown (vicky watchdog)",
        "25: clearNotice",
    ])
}

@Test func shareAgain_givesEveryReceiversWatchdogANewGrace() {
    // Vicky's view wedges for good at 20 (reported at 24) while Samuel's
    // connection stops sending at 38. The share-again at 40 replaces both
    // transceivers: Samuel's watchdog, which would have acted at 42, waits
    // for the new grace and takes its keyframe at 50.
    var share = Share(receivers: ["vicky": "Vicky", "samuel": "Samuel"])
    for s in 1...52 {
        share.second(s, ["vicky": .init(report: s == 24 ? .stalled : nil), "samuel": .init(sends: s < 38)])
    }
    #expect(share.lines.contains("40: shareAgain"))
    #expect(share.lines.filter { $0.contains("samuel watchdog") } == ["50: keyframe (samuel watchdog)"])
}

@Test func silentCapture_isRestartedThreeTimes_thenEndedWithTheLastFailure() {
    // Frames until 5; a restart at 8, 11, 14 (the last one fails with a
    // reason); at 17 the capture is given up, once, with that reason.
    var share = Share()
    for s in 1...30 {
        if s == 14 { share.record(s, share.recovery.captureFailed("the X server went away", permanent: false)) }
        share.second(s, capture: s <= 5, ["vicky": .init()])
    }
    #expect(share.lines == [
        "8: restartCapture", "11: restartCapture", "14: restartCapture",
        "17: endCapture The screen capture stopped and 3 restarts did not bring it back: the X server went away",
    ])
}

@Test func permanentCaptureFailure_endsTheCaptureOnce() {
    var recovery = SenderRecovery(startedAt: at(0))
    #expect(recovery.captureFailed("the shared window was closed", permanent: true) == [.endCapture(reason: "the shared window was closed")])
    #expect(recovery.captureFailed("the shared window was closed", permanent: true).isEmpty)
    #expect(recovery.tick(now: at(10), counters: [:]).isEmpty, "an ended capture is not restarted")
}

@Test func withdrawnReport_isNoClearing_andALaterClearingTakesTheNoticeAway() {
    // Reported at 24; the ladder gives up at 50 (nothing leaves). At 204
    // Vicky withdraws the report after holding it three minutes: no
    // "view is back", no second give-up. At 230 she decodes again and clears.
    var share = Share()
    share.run(1...240) { s in
        .init(sends: s < 20, linkIsLimit: s >= 20,
              report: s == 24 ? .stalled : s == 204 ? .withdrawn : s == 230 ? .cleared : nil)
    }
    #expect(share.lines.filter { $0.contains("Couldn't restore") } == ["50: notice Couldn't restore Vicky's view — try Stop and Share again"])
    #expect(share.lines.suffix(2) == ["204: reportWithdrawn", "230: clearNotice"])
}

@Test func withdrawnBeforeTheLadderGaveUp_saysItCouldNotRestore() {
    var recovery = SenderRecovery(startedAt: at(0))
    recovery.attach("vicky", name: "Vicky", now: at(0))
    _ = recovery.report(.stalled, from: "vicky", now: at(20))
    let actions = recovery.report(.withdrawn, from: "vicky", now: at(22)) ?? []
    #expect(actions.map { if case .ladder(_, let a) = $0 { describe(a) } else { "" } }
        == ["reportWithdrawn", "notice Couldn't restore Vicky's view — try Stop and Share again"])
    #expect(recovery.report(.stalled, from: "nobody", now: at(23)) == nil)
}

@Test func statusLine_saysWhatRecoveryIsDoing() {
    var share = Share()
    share.run(1...12) { _ in .init() }
    #expect(share.recovery.doing(for: "vicky") == "watching")
    share.run(13...13) { _ in .init(report: .stalled) }
    #expect(share.recovery.doing(for: "vicky") == "keyframes for Vicky's stalled view")
    share.run(14...17, capture: { _ in false }) { _ in .init(report: .cleared) }
    #expect(share.recovery.doing(for: "vicky") == "capture restarted")
}
