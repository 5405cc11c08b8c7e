import Media
import Testing
@testable import Recovery

/// Runs a capture watchdog second by second; `delivers` says whether the
/// capture produced a frame that second, `idle` whether a damage-driven source
/// said it is alive with nothing changed. Returns the restart seconds.
private func restarts(
    through end: Int, delivers: (Int) -> Bool, idle: (Int) -> Bool = { _ in false }
) -> (seconds: [Int], watchdog: CaptureWatchdog) {
    var watchdog = CaptureWatchdog(startedAt: at(0))
    var seconds: [Int] = []
    for second in 1...end {
        if delivers(second) { _ = watchdog.captureDelivered(now: at(second)) }
        if idle(second) { _ = watchdog.captureReportedIdle(now: at(second)) }
        if !watchdog.tick(now: at(second)).isEmpty { seconds.append(second) }
    }
    return (seconds, watchdog)
}

@Test func silentCapture_restartsAtThreeSeconds_thenEveryThreeSeconds() {
    // Frames at 1–5, then nothing: silent from 5, restarted at 8 (not 7),
    // and again at 11 and 14 while the restarts bring nothing back.
    let run = restarts(through: 14) { $0 <= 5 }
    #expect(run.seconds == [8, 11, 14])
    #expect(run.watchdog.restartCount == 3)
    #expect(run.watchdog.consecutiveRestarts == 3)
}

@Test func captureThatComesBack_isNotRestartedAgain() {
    // Silent from 2, restarted at 5; frames again from 6: no more restarts,
    // and the run of restarts starts again from zero.
    let run = restarts(through: 30) { $0 <= 2 || $0 >= 6 }
    #expect(run.seconds == [5])
    #expect(run.watchdog.restartCount == 1)
    #expect(run.watchdog.consecutiveRestarts == 0)
}

@Test func stillScreenFromDamageDrivenSource_isNotRestarted() {
    // Frames at 1–2, then a still screen: the source says "alive, nothing
    // changed" every second, so it is never restarted.
    let run = restarts(through: 60, delivers: { $0 <= 2 }, idle: { $0 > 2 })
    #expect(run.seconds.isEmpty)
}

@Test func restartAction_saysWhy() {
    var watchdog = CaptureWatchdog(startedAt: at(0))
    #expect(watchdog.tick(now: at(3)) == [.restartCapture(
        reason: "capture reported nothing for 3 s; restarting on the same content (restart 1)")])
}
