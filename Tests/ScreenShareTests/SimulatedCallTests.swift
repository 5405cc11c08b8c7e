import Congestion
import Media
import RTP
import SRTP
import Sending
import Testing
@testable import ScreenShare

/// The real sender against a bottleneck and a receiver's feedback, all on
/// one manual clock (docs/behaviour.md §7.4–§7.7): what the estimate, the
/// pacer and the keyframe rules do together, in simulated seconds.
@Suite(.serialized) struct SimulatedCallTests {
    /// A `tc tbf rate 1.5mbit latency 200ms` uplink with 100 ms of round trip.
    static func uplink(_ bitsPerSecond: Double = 1_500_000, loss: Double = 0) -> SimulatedLink {
        SimulatedLink(bitsPerSecond: bitsPerSecond, queueLimit: .delay(.milliseconds(200)), propagationDelay: .milliseconds(50),
                      jitter: .milliseconds(1), lossRate: loss, seed: 5)
    }

    static func megabits(_ samples: [(at: Double, status: ShareStatus)]) -> String {
        samples.map { "\(Int($0.at * 10) / 10):\($0.status.targetBitrate / 1000)" }.joined(separator: " ")
    }

    @Test func transportWideFeedback_targetConvergesToA1500kLinkWithin5Seconds() throws {
        // 0 s: 300 kbit/s, probes out; by 0.5 s near the link. A 720p screen
        // in motion offers about the link. From 5 s to 8 s the target averages
        // within 10 % of 1.5 Mbit/s and stays within the delay estimate's saw
        // (a back-off to 0.85, growth above while the encoder leaves room).
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: Self.uplink(),
                                       feedback: .transportWide, transportWide: true)
        defer { share.stop() }
        let samples = share.sample(for: .seconds(8))
        let settled = samples.filter { $0.at >= 5 }.map { Double($0.status.targetBitrate) }
        let mean = settled.reduce(0, +) / Double(settled.count)
        #expect(abs(mean - 1_500_000) <= 150_000, "mean \(Int(mean)): \(Self.megabits(samples))")
        #expect(settled.allSatisfy { (1_200_000...1_725_000).contains($0) }, "\(Self.megabits(samples))")
        #expect(samples.first { $0.at >= 0.5 }.map { $0.status.targetBitrate >= 1_200_000 } ?? false, "\(Self.megabits(samples))")
        #expect(samples.first!.status.feedback == .transportWide)
    }

    @Test func nacksAlone_bringTheCapBelowTheLinkWithinSeconds() throws {
        // No transport-wide feedback, no RR, no REMB: the receiver only NACKs.
        // 0 s: the 4 Mbit/s cap into 1.5 Mbit/s; each second of NACKs backs
        // off by half the loss they tell of: by 4 s within 10 % of the link,
        // by 6 s below it.
        let share = try SimulatedShare(scenario: .motion, width: 1280, height: 720, link: Self.uplink(), feedback: .nacksOnly)
        defer { share.stop() }
        let samples = share.sample(for: .seconds(8))
        #expect(samples.first!.status.targetBitrate == 4_000_000)
        #expect(samples.first { $0.at >= 4 }.map { $0.status.targetBitrate <= 1_650_000 } ?? false, "\(Self.megabits(samples))")
        let below = samples.first { $0.status.targetBitrate < 1_500_000 }
        #expect(below.map { $0.at <= 6 } ?? false, "\(Self.megabits(samples))")
        #expect(samples.last!.status.limitation == .bandwidth)
        #expect(samples.last!.status.feedback == .receiverReports)
    }

    @Test func underLossWithGCM_noSequenceNumberEverCarriesTwoDifferentPackets() throws {
        // 3 % random loss, NACKs answered from the history, probes of padding:
        // every datagram that left under one (SSRC, sequence number) is the same bytes.
        let key = try SRTPKey(profile: .aeadAes128Gcm, bytes: (0..<28).map { UInt8($0 * 7 & 0xFF) })
        let share = try SimulatedShare(scenario: .motion, width: 640, height: 360, link: Self.uplink(2_000_000, loss: 0.03),
                                       feedback: .transportWide, transportWide: true, key: key)
        defer { share.stop() }
        share.run(for: .seconds(6))
        let packets = try #require(share.peer?.packets)
        var first: [UInt32: [UInt16: [UInt8]]] = [:]
        var resent = 0
        var differing = 0
        for packet in packets {
            if let earlier = first[packet.ssrc]?[packet.sequenceNumber] {
                resent += 1
                if earlier != packet.bytes { differing += 1 }
            } else {
                first[packet.ssrc, default: [:]][packet.sequenceNumber] = packet.bytes
            }
        }
        #expect(differing == 0, "\(differing) of \(resent) repeated sequence numbers carried other bytes")
        #expect(resent > 10, "only \(resent) retransmissions in 6 s of 3 % loss")
        #expect(packets.contains { $0.padding }, "no probe padding was sent")
    }
}
