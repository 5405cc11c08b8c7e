import Media
import Testing
@testable import Recovery

/// Drives a connection watchdog second by second from running counters.
private struct ConnectionTimeline {
    var watchdog = ConnectionWatchdog(connectedAt: at(0))
    var counters = ConnectionWatchdog.Counters()
    var lines: [String] = []

    /// What the connection does in one second.
    struct Second {
        var takesIn = true
        var encodes = true
        var sends = true
        var linkIsLimit = false
    }

    mutating func run(_ seconds: ClosedRange<Int>, _ script: (Int) -> Second) {
        for second in seconds {
            let plan = script(second)
            if plan.takesIn { counters.framesIn += 30 }
            if plan.encodes { counters.framesEncoded += 30 }
            if plan.sends { counters.framesSent += 30 }
            counters.linkIsLimit = plan.linkIsLimit
            lines += watchdog.tick(now: at(second), counters: counters).map { line(second, $0) }
        }
    }
}

@Test func stoppedConnection_keyframeThenFreshEncoderThenNewTransceiver_threeSecondsApart() {
    // Frames flow until 20, then come in but are neither encoded nor sent:
    // at 25 (5 s, not 24) a keyframe; at 28 a fresh encoder a third smaller
    // for 30 s; at 31 a new transceiver. The new transceiver is stuck too:
    // after its own 10 s grace, at 41, the same three steps again.
    var run = ConnectionTimeline()
    run.run(1...50) { .init(encodes: $0 <= 20, sends: $0 <= 20) }
    #expect(run.lines == [
        "25: keyframe", "28: freshEncoder", "31: newTransceiver",
        "41: keyframe", "44: freshEncoder", "47: newTransceiver",
    ])
}

@Test func freshEncoder_isAThirdSmallerForThirtySeconds_thenFullSizeComesBack() {
    // Stuck from 20: keyframe 25, fresh encoder 28; frames move again at 29
    // (stood down); full size comes back at 58, not 57.
    var run = ConnectionTimeline()
    var actions: [(Int, ConnectionWatchdog.Action)] = []
    for second in 1...70 {
        let moving = second <= 20 || second >= 29
        run.counters.framesIn += 30
        if moving {
            run.counters.framesEncoded += 30
            run.counters.framesSent += 30
        }
        actions += run.watchdog.tick(now: at(second), counters: run.counters).map { (second, $0) }
    }
    #expect(actions.map { line($0.0, $0.1) } == ["25: keyframe", "28: freshEncoder", "29: stoodDown", "58: restoreFullSize"])
    guard case .freshEncoder(let shrink, let duration, _) = actions[1].1 else {
        Issue.record("expected a fresh encoder, got \(actions[1].1)")
        return
    }
    #expect(shrink == 1.0 / 3.0)
    #expect(duration == .seconds(30))
}

@Test func progress_standsTheWatchdogDown() {
    // Stuck from 20, keyframe at 25; frames encoded and sent again at 27:
    // stood down there, no fresh encoder, no new transceiver.
    var run = ConnectionTimeline()
    run.run(1...60) { .init(encodes: $0 <= 20 || $0 >= 27, sends: $0 <= 20 || $0 >= 27) }
    #expect(run.lines == ["25: keyframe", "27: stoodDown"])
    #expect(run.watchdog.state == .watching)
}

@Test func encodedButNotSent_countsAsStopped() {
    // Encoded throughout, sent nothing from 20: the rule is "encodes or
    // sends none", so the keyframe still comes at 25.
    var run = ConnectionTimeline()
    run.run(1...25) { .init(sends: $0 <= 20) }
    #expect(run.lines == ["25: keyframe"])
}

@Test func framesWaitingOnTheLink_excuseOnlySilenceInSending() {
    // From 20 frames are encoded but none sent, and packets wait in the
    // pacer's queue until 39: no step. The link last held them back at 39;
    // 5 s of unexplained silence later, at 44 (not 43), the keyframe.
    var run = ConnectionTimeline()
    run.run(1...43) { .init(sends: $0 <= 20, linkIsLimit: $0 >= 20 && $0 < 40) }
    #expect(run.lines.isEmpty)
    #expect(!run.watchdog.screenStoppedLeaving)
    run.run(44...44) { _ in .init(sends: false) }
    #expect(run.lines == ["44: keyframe"])
}

@Test func encoderThatStopsOnAShortLink_isNotExcusedByTheLink() {
    // Nothing encoded from 20 while packets still wait on the link the whole
    // time: an encoder that produces nothing is never the link's doing, so
    // the keyframe comes at 25 all the same.
    var run = ConnectionTimeline()
    run.run(1...25) { .init(encodes: $0 <= 20, sends: $0 <= 20, linkIsLimit: $0 >= 20) }
    #expect(run.lines == ["25: keyframe"])
}

@Test func linkBecomingTheLimit_standsDown() {
    // Encoded but not sent from 20, keyframe at 25; at 27 packets are seen
    // waiting on the link: it explains the silence, stood down.
    var run = ConnectionTimeline()
    run.run(1...35) { .init(sends: $0 <= 20, linkIsLimit: $0 >= 27) }
    #expect(run.lines == ["25: keyframe", "27: stoodDown"])
}

@Test(arguments: [0, 3, 9])
func stoppedDuringFirstTenSeconds_firstStepAtTenSeconds(encodingStopsAt stop: Int) {
    // Frames come in from 1 but stop being encoded after `stop`: stopped
    // leaving by 5 s later at most, yet the keyframe waits for 10 s (not 9)
    // unless the 5 s end later than that.
    var run = ConnectionTimeline()
    run.run(1...20) { .init(encodes: $0 <= stop, sends: $0 <= stop) }
    let expected = max(10, max(stop, 0) + 5)
    #expect(run.lines.first == "\(expected): keyframe")
}

@Test func stillScreenWithNothingComingIn_isNotStopped() {
    // From 20 nothing comes in, so nothing is encoded or sent: no step.
    var run = ConnectionTimeline()
    run.run(1...60) { .init(takesIn: $0 <= 20, encodes: $0 <= 20, sends: $0 <= 20) }
    #expect(run.lines.isEmpty)
}

@Test func countersStartingAgainAfterTransceiverReplaced_countAsProgress() {
    // Stuck from 20; keyframe at 25. At 26 the transceiver is replaced by a
    // rebuild and its totals start again at zero and move: no fresh encoder.
    var watchdog = ConnectionWatchdog(connectedAt: at(0))
    var counters = ConnectionWatchdog.Counters(framesIn: 600, framesEncoded: 600, framesSent: 600)
    _ = watchdog.tick(now: at(20), counters: counters)
    var lines: [String] = []
    for second in 21...25 {
        counters.framesIn += 30
        lines += watchdog.tick(now: at(second), counters: counters).map { line(second, $0) }
    }
    watchdog.transceiverReplaced(now: at(26))
    counters = .init(framesIn: 30, framesEncoded: 30, framesSent: 30)
    for second in 27...40 {
        counters.framesIn += 30
        counters.framesEncoded += 30
        counters.framesSent += 30
        lines += watchdog.tick(now: at(second), counters: counters).map { line(second, $0) }
    }
    #expect(lines == ["25: keyframe"])
    #expect(watchdog.state == .watching)
}

@Test func screenStoppedLeaving_feedsTheLadderEvenInTheFirstTenSeconds() {
    // Nothing encoded from the start: stopped leaving at 5 though no step until 10.
    var run = ConnectionTimeline()
    run.run(1...4) { _ in .init(encodes: false, sends: false) }
    #expect(!run.watchdog.screenStoppedLeaving)
    run.run(5...5) { _ in .init(encodes: false, sends: false) }
    #expect(run.watchdog.screenStoppedLeaving)
    #expect(run.lines.isEmpty)
}
