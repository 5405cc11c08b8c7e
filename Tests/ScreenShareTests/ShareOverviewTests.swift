import Encoding
@testable import ScreenShare
import Testing
import Sending

/// The whole share's two status lines, from each receiver's figures.
struct ShareOverviewTests {
    @Test func linesSumTheBitratesAndNameWhoIsLimited() {
        var a = ShareStatus()
        a.bitrate = 2_400_000
        a.sentFPS = 30
        a.keyframesMade = 2
        var b = ShareStatus()
        b.bitrate = 1_100_000
        b.sentFPS = 12
        b.keyframesMade = 1
        b.keyframesAsked = 1
        b.limitation = .bandwidth
        b.watchdog = "keyframes for Bob's stalled view"
        let overview = ShareOverview(policy: .detail, capturedFPS: 30, receivers: [("alice", a), ("bob", b)])
        #expect(overview.firstLine == "Screen: captured at 30 fps, Text and detail, to 2 receivers, 3.5 Mbit/s in all")
        #expect(overview.secondLine == "Frames: sent 30, 12 fps; keyframes 3 made, 1 asked for; bob limited by bandwidth; "
                + "watchdog: keyframes for Bob's stalled view")
    }

    /// Receivers on one layer got the same keyframes: the share made them once.
    @Test func keyframesOfOneLayer_countOnce() {
        var statuses: [(String, ShareStatus)] = []
        for (id, layer, made) in [("alice", 1, 3), ("dave", 1, 3), ("carol", 2, 1)] {
            var s = ShareStatus()
            s.layer = layer
            s.keyframesMade = made
            statuses.append((id, s))
        }
        let overview = ShareOverview(policy: .balanced, capturedFPS: 30, receivers: statuses)
        #expect(overview.secondLine.contains("keyframes 4 made"), "\(overview.secondLine)")
    }

    @Test func noReceiversYet() {
        let overview = ShareOverview(policy: .balanced, capturedFPS: 0, receivers: [])
        #expect(overview.firstLine == "Screen: captured at 0 fps, Balanced, to 0 receivers, 0.0 Mbit/s in all")
        #expect(overview.secondLine == "Frames: no receivers yet; keyframes 0 made, 0 asked for; watchdog: watching")
    }
}
