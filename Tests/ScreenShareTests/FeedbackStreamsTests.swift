import Foundation
import Media
import RTP
import SRTP
@testable import Sending
import Testing
@testable import ScreenShare

/// docs/behaviour.md §9: what another party sends cannot grow memory without bound. Each new
/// SSRC the receiver's side sends SRTCP from gets a stream in libsrtp (about 400 bytes); a
/// receiver that restarts comes back with a new one every time.
@Suite(.serialized) struct FeedbackStreamsTests {
    static func residentMiB() -> Double {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
    }

    @Test func receiverThatKeepsRestarting_doesNotGrowTheFeedbackSession() throws {
        // 20000 restarts, each reporting from a new SSRC under the share's key: every report is
        // read, and the session keeps a few streams, not 20000 (with no bound: 7.6 MiB more). The
        // limit leaves room for what other tests running alongside allocate in this process.
        let key = try SRTPKey(profile: .aes128CmHmacSha1_80, bytes: (0..<30).map { UInt8($0 * 7 + 1) })
        let share = try SimulatedShare(scenario: .still, key: key)
        defer { share.stop() }
        let reporters = try SRTPSession(key: key, direction: .sender)
        let before = Self.residentMiB()
        for n in 0..<20000 {
            let ssrc = UInt32(1000 + n)
            share.receive(.receiverReport(ReceiverReport(ssrc: ssrc)), protector: reporters)
            reporters.removeStream(ssrc: ssrc)
        }
        let grown = Self.residentMiB() - before
        print("20000 reporters from new SSRCs: resident memory grew \(String(format: "%.2f", grown)) MiB")
        let sources = share.connection.lock.withLock { share.connection.state.feedbackSources }
        #expect(sources == (20996...20999).map { UInt32($0) }, "every report authenticated, the last four sources kept")
        #expect(grown < 4, "grew \(grown) MiB")
    }
}
