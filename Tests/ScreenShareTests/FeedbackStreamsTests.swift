import Media
import RTP
import SRTP
@testable import Sending
import Testing
@testable import ScreenShare

/// docs/behaviour.md §9: what another party sends cannot grow memory without bound. Each new
/// SSRC the receiver's side sends SRTCP from gets a stream in libsrtp (about 400 bytes); a
/// receiver that restarts comes back with a new one every time.
struct FeedbackStreamsTests {
    @Test func receiverThatKeepsRestarting_doesNotGrowTheFeedbackSession() throws {
        // 20000 restarts, each reporting from a new SSRC under the share's key: every report is
        // read, and the session keeps a stream for the last few sources only, not 20000 (with no
        // bound: 7.6 MiB more).
        let key = try SRTPKey(profile: .aes128CmHmacSha1_80, bytes: (0..<30).map { UInt8($0 * 7 + 1) })
        let share = try SimulatedShare(scenario: .still, key: key)
        defer { share.stop() }
        let reporters = try SRTPSession(key: key, direction: .sender)
        for n in 0..<20000 {
            let ssrc = UInt32(1000 + n)
            share.receive(.receiverReport(ReceiverReport(ssrc: ssrc)), protector: reporters)
            reporters.removeStream(ssrc: ssrc)
        }
        let sources = share.connection.lock.withLock { share.connection.state.feedbackSources }
        #expect(sources == (20996...20999).map { UInt32($0) }, "every report authenticated, the last four sources kept")
        let session = try #require(share.connection.feedbackUnprotector)
        let held = (1000...20999).map { UInt32($0) }.filter { session.hasStream(ssrc: $0) }
        // Counted first: a failure listing thousands of numbers would say less.
        #expect(held.count == sources.count, "the feedback session holds streams for \(held.count) sources")
        if held.count == sources.count { #expect(held == sources) }
    }
}
