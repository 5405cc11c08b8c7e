import Foundation
import Testing

/// docs/behaviour.md §5.6 gates, and the schedule of §5.2: a receiver whose decoder is wedged,
/// real processes over real UDP, and the ladder must restore the view — 3 s of decoding at
/// 20 fps or more — within 30 s of the report, or say that it cannot, with no new share by the
/// user. Each step must come when the schedule says: keyframes at the report, the rebuild 6 s
/// after the first keyframe, the share-again 10 s later, the give-up 10 s after that (± 1 s).
/// The sender's own faults must be mended within 15 s.
enum RecoveryGates {
    static func keyframeWedge(link: String?, watched: Bool = false) throws {
        let run = try RecoveryGate(wedge: "keyframe", seconds: 24, link: link, watched: watched)
        defer { run.finish() }
        let engaged = try #require(run.wait(15, from: "receiver", "\"event\":\"wedge\"", "engaged"))
        let mended = try #require(run.wait(30, from: "receiver", "\"event\":\"wedge\"", "mended"))
        let restored = run.waitForRestore(after: mended)
        print("gate keyframe (\(run.linkName)): mended \(RecoveryGate.format(mended - engaged)) s after the wedge, "
              + "\(RecoveryGate.restoredFor) s at \(Int(RecoveryGate.restoredFPS)) fps from \(RecoveryGate.format(restored.map { $0 - engaged })) s")
        #expect(restored != nil, "decoding went on after the keyframe")
        // Any keyframe mends this wedge; one asked for after a lost packet may come before the 4 s report.
        if let report = run.report {
            RecoveryGate.expectSpacing(report, run.step("keyframe"), 0, "keyframe after the report")
            #expect((restored ?? .infinity) - report <= RecoveryGate.gate)
        }
        #expect(run.step("rebuild") == nil, "a keyframe was enough: no rebuild")
        run.expectWatcherKeptDecoding(from: engaged)
    }

    static func decoderWedge(link: String?, watched: Bool = false) throws {
        let run = try RecoveryGate(wedge: "decoder", seconds: 32, link: link, watched: watched)
        defer { run.finish() }
        let (mended, report) = try run.wedgeMended(within: 30)
        let (keyframe, rebuild) = (run.step("keyframe"), run.step("rebuild"))
        let restored = run.waitForRestore(after: mended)
        print("gate wedge (\(run.linkName)): after the report, keyframe \(RecoveryGate.format(keyframe.map { $0 - report })) s, "
              + "rebuild \(RecoveryGate.format(rebuild.map { $0 - report })) s, restored \(RecoveryGate.format(restored.map { $0 - report })) s")
        RecoveryGate.expectSpacing(report, keyframe, 0, "keyframe after the report")
        RecoveryGate.expectSpacing(keyframe, rebuild, 6, "rebuild after the first keyframe")
        #expect(mended > (rebuild ?? .infinity), "mended by the rebuild")
        #expect((restored ?? .infinity) - report <= RecoveryGate.gate, "restored within 30 s of the report")
        #expect(run.client.firstTime(from: "sender", containing: "Restarting your share for the receiver…") != nil)
        #expect(run.step("shareAgain") == nil, "no share-again")
        // Diagnostics: the receiver's figures and the ladder's history, never the key.
        let text = run.diagnostics()
        #expect(text.contains("recovery history:"))
        #expect(text.contains("rebuild"))
        #expect(text.contains("encoder: x264"))
        #expect(!text.contains(run.key.base64))
        run.expectWatcherKeptDecoding(from: run.engaged ?? 0)
    }

    static func stickyWedge(link: String?, watched: Bool = false) throws {
        let run = try RecoveryGate(wedge: "sticky", seconds: 40, link: link, watched: watched)
        defer { run.finish() }
        let (mended, report) = try run.wedgeMended(within: 35)
        let (keyframe, rebuild, shareAgain) = (run.step("keyframe"), run.step("rebuild"), run.step("shareAgain"))
        let restored = run.waitForRestore(after: mended)
        print("gate wedge-sticky (\(run.linkName)): after the report, keyframe \(RecoveryGate.format(keyframe.map { $0 - report })) s, "
              + "rebuild \(RecoveryGate.format(rebuild.map { $0 - report })) s, share-again \(RecoveryGate.format(shareAgain.map { $0 - report })) s, "
              + "restored \(RecoveryGate.format(restored.map { $0 - report })) s")
        RecoveryGate.expectSpacing(report, keyframe, 0, "keyframe after the report")
        RecoveryGate.expectSpacing(keyframe, rebuild, 6, "rebuild after the first keyframe")
        RecoveryGate.expectSpacing(rebuild, shareAgain, 10, "share-again after the rebuild")
        #expect((rebuild ?? .infinity) < (shareAgain ?? -.infinity), "the rebuild came before the share-again")
        #expect(mended > (shareAgain ?? .infinity), "mended by the share-again, not before")
        #expect((restored ?? .infinity) - report <= RecoveryGate.gate, "restored within 30 s of the report")
        #expect(run.step("gaveUp") == nil, "restored: no give-up")
        run.expectWatcherKeptDecoding(from: run.engaged ?? 0)
    }

    static func wedgeThatNeverMends(link: String?, watched: Bool = false) throws {
        let run = try RecoveryGate(wedge: "forever", seconds: 42, link: link, watched: watched)
        defer { run.finish() }
        _ = try #require(run.wait(15, from: "receiver", "\"event\":\"wedge\"", "engaged"))
        let said = try #require(run.wait(40, from: "sender", "Couldn't restore the receiver's view — try Stop and Share again"))
        let report = try #require(run.report)
        let (keyframe, rebuild, shareAgain, gaveUp) = (run.step("keyframe"), run.step("rebuild"), run.step("shareAgain"), run.step("gaveUp"))
        print("gate forever (\(run.linkName)): after the report, keyframe \(RecoveryGate.format(keyframe.map { $0 - report })) s, "
              + "rebuild \(RecoveryGate.format(rebuild.map { $0 - report })) s, share-again \(RecoveryGate.format(shareAgain.map { $0 - report })) s, "
              + "give-up notice \(RecoveryGate.format(said - report)) s")
        RecoveryGate.expectSpacing(report, keyframe, 0, "keyframe after the report")
        RecoveryGate.expectSpacing(keyframe, rebuild, 6, "rebuild after the first keyframe")
        RecoveryGate.expectSpacing(rebuild, shareAgain, 10, "share-again after the rebuild")
        RecoveryGate.expectSpacing(shareAgain, gaveUp, 10, "give-up after the share-again")
        #expect(said - report <= RecoveryGate.gate + RecoveryGate.scheduleMargin, "said within 30 s of the report")
        #expect(run.client.firstTime(from: "receiver", containing: "\"event\":\"wedge\"", "mended") == nil)
        run.expectWatcherKeptDecoding(from: run.engaged ?? 0)
    }

    /// `fault` as `--fault` takes it; it strikes `after` seconds into the share.
    static func senderFault(_ fault: String, after: Double, seconds: Int, link: String?) throws {
        let run = try RecoveryGate(wedge: nil, senderArguments: ["--fault", "\(fault):\(Int(after))"], seconds: seconds, link: link)
        defer { run.finish() }
        let started = try #require(run.wait(10, from: "sender", "\"event\":\"sending\""))
        let strikes = started + after
        _ = run.wait(Double(seconds), from: "sender", "\"event\":\"share\"", "off")
        let fell = run.fell(after: strikes)
        let restored = fell.flatMap { run.restored(after: $0) }
        print("gate \(fault) (\(run.linkName)): decoding fell \(RecoveryGate.format(fell.map { $0 - strikes })) s and was restored "
              + "\(RecoveryGate.format(restored.map { $0 - strikes })) s after the fault")
        #expect(fell != nil, "the fault showed at the receiver")
        #expect((restored ?? .infinity) - strikes <= RecoveryGate.faultGate, "decoding again within 15 s of the fault")
        #expect(run.step("shareAgain") == nil, "no share-again")
        if fault == "capture-stops" {
            #expect(run.client.firstTime(from: "sender", containing: "restarting the capture") != nil)
        } else {
            // The watchdog's fresh encoder mends it, unless a stall report's rebuild came first.
            #expect(run.step("freshEncoder") != nil || run.step("rebuild") != nil)
        }
    }
}

@Suite(.serialized) struct RecoveryGateTests {
    @Test func keyframeWedge_isMendedByTheKeyframesAStallReportBrings() throws {
        try RecoveryGates.keyframeWedge(link: nil)
    }

    @Test func decoderWedge_isMendedByRebuildingThatReceiversScreen_sixSecondsAfterTheFirstKeyframe() throws {
        try RecoveryGates.decoderWedge(link: nil)
    }

    @Test func stickyWedge_isMendedOnlyBySharingAgain_tenSecondsAfterTheRebuild() throws {
        try RecoveryGates.stickyWedge(link: nil)
    }

    @Test func wedgeThatNeverMends_triesEveryStepOnTime_andIsSaidWithin30Seconds() throws {
        try RecoveryGates.wedgeThatNeverMends(link: nil)
    }

    @Test(arguments: ["encoder-stops", "encoder-hangs"])
    func stoppedEncoder_isReplacedAndFramesLeaveAgain(fault: String) throws {
        try RecoveryGates.senderFault(fault, after: 12, seconds: 36, link: nil)
    }

    @Test func stoppedCapture_isRestartedOnTheSameContent() throws {
        try RecoveryGates.senderFault("capture-stops", after: 5, seconds: 22, link: nil)
    }
}

/// The same gates through `serve` with a second receiver, the watcher, on the wedged one's layer
/// (docs/behaviour.md §12): the wedged receiver's ladder keeps its schedule, and the watcher
/// decodes on through every step but the share-again, which is for everyone.
@Suite(.serialized) struct SharedLayerRecoveryGateTests {
    @Test func keyframeWedge_isMendedByTheKeyframesAStallReportBrings() throws {
        try RecoveryGates.keyframeWedge(link: nil, watched: true)
    }

    @Test func decoderWedge_isMendedByRebuildingThatReceiversScreen_sixSecondsAfterTheFirstKeyframe() throws {
        try RecoveryGates.decoderWedge(link: nil, watched: true)
    }

    @Test func stickyWedge_isMendedOnlyBySharingAgain_tenSecondsAfterTheRebuild() throws {
        try RecoveryGates.stickyWedge(link: nil, watched: true)
    }

    @Test func wedgeThatNeverMends_triesEveryStepOnTime_andIsSaidWithin30Seconds() throws {
        try RecoveryGates.wedgeThatNeverMends(link: nil, watched: true)
    }
}

/// The same gates through a 1.5 Mbit/s link (`tc tbf` on the loopback of a network namespace
/// of the test's own): the schedule does not move, and a short link excuses no sender fault.
@Suite(.serialized, .enabled(if: LinkNamespace.available, "needs root for network namespaces and tc"))
struct LimitedLinkRecoveryGateTests {
    static let rate = "1.5mbit"

    @Test func keyframeWedge_isMendedByTheKeyframesAStallReportBrings() throws {
        try RecoveryGates.keyframeWedge(link: Self.rate)
    }

    @Test func decoderWedge_isMendedByRebuildingThatReceiversScreen_sixSecondsAfterTheFirstKeyframe() throws {
        try RecoveryGates.decoderWedge(link: Self.rate)
    }

    @Test func stickyWedge_isMendedOnlyBySharingAgain_tenSecondsAfterTheRebuild() throws {
        try RecoveryGates.stickyWedge(link: Self.rate)
    }

    @Test func wedgeThatNeverMends_triesEveryStepOnTime_andIsSaidWithin30Seconds() throws {
        try RecoveryGates.wedgeThatNeverMends(link: Self.rate)
    }

    @Test(arguments: ["encoder-stops", "encoder-hangs"])
    func stoppedEncoder_isReplacedAndFramesLeaveAgain(fault: String) throws {
        try RecoveryGates.senderFault(fault, after: 12, seconds: 36, link: Self.rate)
    }

    @Test func stoppedCapture_isRestartedOnTheSameContent() throws {
        try RecoveryGates.senderFault("capture-stops", after: 5, seconds: 22, link: Self.rate)
    }
}

/// The shared-layer gates through the 1.5 Mbit/s link: the watcher's stream crosses the same
/// bottleneck, so the layer's rate is what the link carries for both, and the wedged
/// receiver's ladder still keeps its schedule while the watcher decodes on.
@Suite(.serialized, .enabled(if: LinkNamespace.available, "needs root for network namespaces and tc"))
struct SharedLayerLimitedLinkRecoveryGateTests {
    @Test func keyframeWedge_isMendedByTheKeyframesAStallReportBrings() throws {
        try RecoveryGates.keyframeWedge(link: LimitedLinkRecoveryGateTests.rate, watched: true)
    }

    @Test func decoderWedge_isMendedByRebuildingThatReceiversScreen_sixSecondsAfterTheFirstKeyframe() throws {
        try RecoveryGates.decoderWedge(link: LimitedLinkRecoveryGateTests.rate, watched: true)
    }

    @Test func stickyWedge_isMendedOnlyBySharingAgain_tenSecondsAfterTheRebuild() throws {
        try RecoveryGates.stickyWedge(link: LimitedLinkRecoveryGateTests.rate, watched: true)
    }

    @Test func wedgeThatNeverMends_triesEveryStepOnTime_andIsSaidWithin30Seconds() throws {
        try RecoveryGates.wedgeThatNeverMends(link: LimitedLinkRecoveryGateTests.rate, watched: true)
    }
}
