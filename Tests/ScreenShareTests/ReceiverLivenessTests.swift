import Media
@testable import ScreenShare
import Testing

/// "Reconnecting to NAME…" only for a problem that lasts (docs/behaviour.md §10.1), and a receiver that
/// vanishes timed out (§8.5): fed as the share's heartbeat feeds it, four times a second, on simulated time.
struct ReceiverLivenessTests {
    /// A receiver that sends one RTCP packet a second while `sending(t)` holds, looked at every 250 ms
    /// from 0 to `until`; what changed, and when.
    func timeline(until: Double, sending: (Double) -> Bool) -> [(Double, ReceiverLiveness.Change)] {
        var liveness = ReceiverLiveness()
        var feedback = 0
        var changes: [(Double, ReceiverLiveness.Change)] = []
        for tick in 0...Int(until * 4) {
            let t = Double(tick) / 4
            if tick % 4 == 0 && sending(t) { feedback += 1 }
            if let change = liveness.look("vicky", feedback: feedback, now: .seconds(t)) { changes.append((t, change)) }
        }
        return changes
    }

    @Test func rtcpStoppedForFourSeconds_isReconnecting_clearedOneSecondAfterItResumes() {
        // RTCP at 0…10 s, none from 11 s to 19 s, again from 20 s. Last heard at 10 s: reconnecting at 14 s;
        // heard again at 20 s: cleared at 21 s.
        let changes = timeline(until: 30) { $0 <= 10 || $0 >= 20 }
        #expect(changes.map(\.0) == [14, 21])
        #expect(changes.map(\.1) == [.reconnecting(silentFor: .seconds(4)), .reconnected])
    }

    @Test func aBriefGap_saysNothing() {
        // Three reports missed (11, 12, 13 s): silent 3.75 s at most, under the 4 s.
        #expect(timeline(until: 30) { !(11...13).contains($0) }.isEmpty)
    }

    @Test func aLonePacketInTheGap_staysReconnecting() {
        // Silent after 10 s; one packet at 16 s; silent again; steady from 25 s.
        let changes = timeline(until: 30) { $0 <= 10 || $0 == 16 || $0 >= 25 }
        // The lone packet at 16 s is not RTCP that kept coming: still reconnecting until 26 s, with no second notice.
        #expect(changes.map(\.0) == [14, 26])
        #expect(changes.map(\.1) == [.reconnecting(silentFor: .seconds(4)), .reconnected])
    }

    @Test func silentForFifteenSecondsAfterFeedback_isLostAfterReconnecting() {
        let changes = timeline(until: 30) { $0 <= 1 }
        #expect(changes.map(\.0) == [5, 16])
        #expect(changes.map(\.1) == [.reconnecting(silentFor: .seconds(4)), .lost])
    }

    @Test func aReceiverThatNeverSendsRTCP_isNeitherReconnectingNorLost() {
        #expect(timeline(until: 120) { _ in false }.isEmpty)
    }

    @Test func forgetting_startsAgain() {
        var liveness = ReceiverLiveness()
        _ = liveness.look("a", feedback: 2, now: .seconds(0))
        liveness.forget("a")
        #expect(liveness.look("a", feedback: 2, now: .seconds(30)) == nil)
    }
}
