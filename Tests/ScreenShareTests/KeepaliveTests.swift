import Congestion
import Media
import Testing
@testable import ScreenShare

/// A receiver that waits for each next packet by the clock (docs/behaviour.md
/// §7.7) gets padding in the still screen's silences; one that asks only for
/// gaps gets none.
@Suite(.serialized) struct KeepaliveTests {
    static func wideLink() -> SimulatedLink {
        SimulatedLink(bitsPerSecond: 10_000_000, queueLimit: .delay(.milliseconds(200)), propagationDelay: .milliseconds(5), seed: 5)
    }

    static func timestamp(_ packet: SimulatedPeer.Packet) -> UInt32 {
        packet.bytes[4..<8].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The longest time between two packets that left from `from` on.
    static func longestSilence(_ packets: [SimulatedPeer.Packet], from: Instant) -> Duration {
        let times = packets.map(\.sendTime).filter { $0 >= from }.sorted()
        return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .zero
    }

    @Test func aReceiverThatAsksAhead_getsNoSilenceOverAKeepaliveInterval_stampedWithTheTime() throws {
        // A still screen sends a frame a second; the receiver names the number
        // after each frame's last before it is sent. From then on no 150 ms
        // pass without a packet, and each padding packet's RTP time moves on
        // with the clock (rtpbin judges lateness by RTP time).
        let share = try SimulatedShare(scenario: .still, width: 640, height: 360, link: Self.wideLink(), feedback: .nacksAhead)
        defer { share.stop() }
        share.run(for: .seconds(5))
        let packets = try #require(share.peer?.packets)
        #expect(Self.longestSilence(packets, from: share.started + .seconds(2)) <= .milliseconds(150))
        let keepalives = packets.filter { $0.padding && $0.sendTime >= share.started + .seconds(2) }
        #expect(keepalives.count >= 20, "\(keepalives.count) keepalives in 3 s of still screen")
        #expect(keepalives.allSatisfy { $0.bytes.count < 60 }, "a keepalive is the smallest padding packet")
        let stamps = keepalives.map(Self.timestamp)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 &- $0 > 0 && $1 &- $0 < 0x8000_0000 }, "\(stamps)")
        let all = packets.filter(\.padding).count
        #expect(share.connection.diagnosticLines.contains { $0.contains("keepalives \(all))") }, "\(share.connection.diagnosticLines)")
    }

    @Test func aReceiverThatAsksOnlyForGaps_getsNoKeepalives() throws {
        let share = try SimulatedShare(scenario: .still, width: 640, height: 360, link: Self.wideLink(), feedback: .nacksOnly)
        defer { share.stop() }
        share.run(for: .seconds(5))
        let packets = try #require(share.peer?.packets)
        #expect(!packets.contains { $0.padding })
        #expect(Self.longestSilence(packets, from: share.started + .seconds(2)) >= .milliseconds(900))
    }
}
