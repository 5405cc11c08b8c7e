import Media
import RTP
import Testing
@testable import Receiving

/// docs/behaviour.md §6.2: packets wait at most 250 ms behind a gap, each counted from its own
/// arrival, so gaps that follow one another cost 250 ms together, not 250 ms each.
struct ReorderBufferTests {
    static func at(_ milliseconds: Int) -> Instant {
        Instant(nanoseconds: Int64(milliseconds) * 1_000_000)
    }

    static func packet(_ sequence: UInt16, at milliseconds: Int) -> ReorderBuffer.Packet {
        let header = RTPHeader(marker: false, payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: 1)
        return ReorderBuffer.Packet(bytes: [], payloadRange: 0..<0, header: header,
                                    arrival: Self.at(milliseconds), sendTime: nil)
    }

    @Test func packetsInOrder_leaveAtOnce() {
        var buffer = ReorderBuffer()
        let out = (0..<5).flatMap { buffer.insert(Self.packet(65533 &+ UInt16($0), at: $0)) }
        #expect(out.map(\.header.sequenceNumber) == [65533, 65534, 65535, 0, 1])
    }

    @Test func aRetransmissionInTime_fillsItsGap() {
        var buffer = ReorderBuffer()
        _ = buffer.insert(Self.packet(10, at: 0))
        #expect(buffer.insert(Self.packet(12, at: 5)).isEmpty)
        #expect(buffer.expire(now: Self.at(200)).isEmpty)
        #expect(buffer.insert(Self.packet(11, at: 200)).map(\.header.sequenceNumber) == [11, 12])
    }

    @Test func twoGapsInARow_areGivenUpTogether() {
        // At 0 ms packet 1; 2 is lost; 3–5 arrive at 10 ms; 6 is lost; 7–9 at 20 ms.
        // At 270 ms every waiting packet has waited 250 ms: all leave, not 3–5
        // at 260 and 7–9 only at 510.
        var buffer = ReorderBuffer()
        _ = buffer.insert(Self.packet(1, at: 0))
        for s in 3...5 { _ = buffer.insert(Self.packet(UInt16(s), at: 10)) }
        for s in 7...9 { _ = buffer.insert(Self.packet(UInt16(s), at: 20)) }
        #expect(buffer.expire(now: Self.at(259)).isEmpty)
        #expect(buffer.expire(now: Self.at(270)).map(\.header.sequenceNumber) == [3, 4, 5, 7, 8, 9])
    }

    @Test func aStreamLosingEveryFifthPacket_neverFallsBehind() {
        // 100 packets a second for 10 s, one in five lost and never resent,
        // the buffer looked at every 20 ms: no packet waits more than 250 ms
        // and a poll, however long the loss goes on.
        var buffer = ReorderBuffer()
        var longest = Duration.zero
        var arrivals: [UInt16: Instant] = [:]
        for tick in 0..<500 {
            let now = Self.at(tick * 20)
            var out: [ReorderBuffer.Packet] = []
            for k in 0..<2 {
                let sequence = UInt16(tick * 2 + k)
                guard sequence % 5 != 4 else { continue }
                arrivals[sequence] = now
                out += buffer.insert(Self.packet(sequence, at: tick * 20))
            }
            out += buffer.expire(now: now)
            for p in out { longest = max(longest, now - arrivals[p.header.sequenceNumber]!) }
        }
        #expect(longest <= .milliseconds(270), "longest wait \(longest)")
    }
}
