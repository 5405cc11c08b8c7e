import Media
import Testing
@testable import Recovery

/// Drives a restart detector second by second with what the receiver's
/// reports say: `reporter` the SSRC they come from, `hears` whether one from
/// it has covered our stream; 300 packets leave each second unless `sending` is false.
private func detect(
    _ seconds: ClosedRange<Int>, sending: (Int) -> Bool = { _ in true },
    _ reports: (Int) -> (reporter: UInt32?, hears: Bool)
) -> [String] {
    var detector = ReceiverRestartDetector()
    var packets = 0
    var lines: [String] = []
    for second in seconds {
        if sending(second) { packets += 300 }
        let r = reports(second)
        let seen = ReceiverRestartDetector.Reports(reporter: r.reporter, reporterHearsUs: r.hears, packetsSent: packets)
        lines += detector.tick(now: at(second), reports: seen).map { line(second, $0) }
    }
    return lines
}

@Test func restartedReceiverThatCannotReadTheStream_getsANewOneTwoSecondsOn() {
    // Reporter 1 hears us until 10; at 11 the receiver restarts and reports
    // from 2, covering none of our streams: at 13 (not 12) a new stream.
    let lines = detect(1...20) { $0 <= 10 ? (1, true) : (2, false) }
    #expect(lines == ["13: newStream"])
}

@Test func restartedReceiverThatReadsTheStream_isLeftAlone() {
    let lines = detect(1...20) { $0 <= 10 ? (1, true) : (2, $0 >= 12) }
    #expect(lines.isEmpty)
}

@Test func restartedReceiverThatStillCannotRead_getsOneNewStreamOnly() {
    // A new stream at 13 does not help (a wrong key, say): nothing more.
    let lines = detect(1...60) { $0 <= 10 ? (1, true) : (2, false) }
    #expect(lines == ["13: newStream"])
}

@Test func receiverThatNeverHeardUs_isLeftAlone() {
    // Reports from the start that never cover us: a new SSRC would not help.
    #expect(detect(1...30) { _ in (1, false) }.isEmpty)
    #expect(detect(1...30) { $0 <= 10 ? (1, false) : (2, false) }.isEmpty)
}

@Test func reporterThatStopsCoveringUs_isALossNotARestart() {
    // The same reporter: packets are lost on the way, not unreadable.
    #expect(detect(1...30) { (1, $0 <= 10) }.isEmpty)
}

@Test func nothingSentWhileTheNewReporterWaits_isNoSign() {
    // A still screen's pause in sending says nothing about the receiver.
    let lines = detect(1...20, sending: { $0 <= 10 || $0 >= 16 }) { $0 <= 10 ? (1, true) : (2, false) }
    #expect(lines == ["16: newStream"])
}

@Test func secondRestart_isNoticedAgain() {
    // Restarted at 11 (new stream at 13, heard from 14), and again at 30.
    let lines = detect(1...40) { s in
        switch s {
        case ...10: (1, true)
        case 11...13: (2, false)
        case 14...29: (2, true)
        default: (3, false)
        }
    }
    #expect(lines == ["13: newStream", "32: newStream"])
}
