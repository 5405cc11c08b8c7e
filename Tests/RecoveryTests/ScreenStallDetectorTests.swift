import Media
import Testing
@testable import Recovery

/// Drives a receiver's stall detector second by second; `count` gives the
/// decoder's running count each second, nil when it was not read.
private func detect(
    _ seconds: ClosedRange<Int>, newStreamAt: Int? = nil, count: (Int) -> Int?
) -> [String] {
    var detector = ScreenStallDetector(startedAt: at(0))
    var lines: [String] = []
    for second in seconds {
        if second == newStreamAt { detector.newStream(now: at(second)) }
        if let decoded = count(second) {
            lines += detector.decoded(count: decoded, now: at(second)).map { line(second, $0) }
        }
        lines += detector.tick(now: at(second)).map { line(second, $0) }
    }
    return lines
}

@Test func nothingDecodedForFourSeconds_reportsAndRehandsPicture() {
    // Decoding 30 a second until 10, then nothing: at 14 (not 13) the report,
    // the picture handed to the view again and the statistics logged; then
    // the statistics every second.
    let lines = detect(1...16) { $0 <= 10 ? $0 * 30 : 300 }
    #expect(lines == [
        "14: reportStalled", "14: rehandPicture", "14: logStatistics",
        "15: logStatistics", "16: logStatistics",
    ])
}

@Test func decodingAgain_clearsTheReport() {
    // Stalled from 10, reported at 14; a frame decoded at 17 clears it.
    let lines = detect(1...30) { $0 <= 10 ? $0 * 30 : ($0 >= 17 ? $0 * 30 : 300) }
    #expect(lines.filter { !$0.hasSuffix("logStatistics") } == ["14: reportStalled", "14: rehandPicture", "17: reportCleared"])
}

@Test func reportHeldForThreeMinutes_thenExpires() {
    // Stalled from 10, reported at 14; held until 194 (not 193), then
    // withdrawn; no more statistics after that.
    let lines = detect(1...300) { $0 <= 10 ? $0 * 30 : 300 }
    let lastLines = Array(lines.suffix(2))
    #expect(lastLines == ["193: logStatistics", "194: reportExpired"])
    #expect(lines.filter { $0.hasSuffix("reportStalled") } == ["14: reportStalled"])
}

@Test func decodingAfterTheReportWasWithdrawn_clearsIt() {
    // Withdrawn at 194; the view decodes again at 250: that is a clearing,
    // so the sharer's "couldn't restore" notice goes and a later stall is
    // reported afresh (here from 254, reported at 258).
    let lines = detect(1...260) { $0 <= 10 ? $0 * 30 : ($0 >= 250 && $0 <= 254 ? $0 * 30 : ($0 > 254 ? 254 * 30 : 300)) }
    #expect(lines.filter { !$0.hasSuffix("logStatistics") && !$0.hasSuffix("rehandPicture") }
        == ["14: reportStalled", "194: reportExpired", "250: reportCleared", "258: reportStalled"])
}

@Test func newStream_countStartingFromZero_isMovement() {
    // Stalled at 300 decoded from 10, reported at 14. At 16 the screen is
    // rebuilt: a new SSRC whose decoder counts from zero. Still 0 at 16–17
    // (nothing yet), 5 decoded at 18: cleared at 18.
    let lines = detect(1...20, newStreamAt: 16) { second in
        switch second {
        case ...10: second * 30
        case 11...15: 300
        case 16...17: 0
        default: (second - 17) * 5
        }
    }
    #expect(lines.filter { !$0.hasSuffix("logStatistics") } == ["14: reportStalled", "14: rehandPicture", "18: reportCleared"])
}

@Test func anyChangeInTheCount_isMovement() {
    // The count falls from 300 to 2 with no new-stream event (a decoder the
    // receiver replaced on its own): still movement, so no report at 14.
    let lines = detect(1...13) { $0 <= 10 ? $0 * 30 : 2 }
    #expect(lines.isEmpty)
    let stalled = detect(1...15) { $0 <= 10 ? $0 * 30 : 2 }
    #expect(stalled.first == "15: reportStalled")
}

@Test func screenThatNeverDecodes_isReportedFourSecondsAfterItStarted() {
    let lines = detect(1...4) { _ in nil }
    #expect(lines.first == "4: reportStalled")
}
