import Media
import Testing
@testable import RTP

extension PacketHistory {
    /// What a resend of it would send, leaving this history as it was.
    func packet(sequenceNumber: UInt16) -> [UInt8]? {
        var copy = self
        return copy.takeForResend(sequenceNumber: sequenceNumber, at: .zero)
    }
}

struct PacketHistoryTests {
    @Test func lookup_findsStoredPacket() {
        var history = PacketHistory(capacity: 8)
        history.store([1, 2, 3], sequenceNumber: 100)
        history.store([4, 5], sequenceNumber: 101)
        #expect(history.packet(sequenceNumber: 100) == [1, 2, 3])
        #expect(history.packet(sequenceNumber: 101) == [4, 5])
        #expect(history.packet(sequenceNumber: 102) == nil)
    }

    @Test func keepsTheTransportWideNumberEachPacketWasSentWith() {
        var history = PacketHistory(capacity: 8)
        history.store([1], sequenceNumber: 100, transportSequenceNumber: 65_535)
        history.store([2], sequenceNumber: 101)
        #expect(history.transportSequenceNumber(of: 100) == 65_535)
        #expect(history.transportSequenceNumber(of: 101) == nil, "sent without one")
        history.store([3], sequenceNumber: 108, transportSequenceNumber: 7)
        #expect(history.transportSequenceNumber(of: 100) == nil, "overwritten")
        #expect(history.transportSequenceNumber(of: 108) == 7)
    }

    @Test func overwrite_forgetsOldest() {
        var history = PacketHistory(capacity: 8)
        for seq in UInt16(0)..<9 { history.store([UInt8(seq)], sequenceNumber: seq) }
        // 8 shares a slot with 0.
        #expect(history.packet(sequenceNumber: 0) == nil)
        #expect(history.packet(sequenceNumber: 8) == [8])
        #expect(history.packet(sequenceNumber: 1) == [1])
    }

    @Test(arguments: [UInt16(0), 32767, 65527])
    func sequenceWrap_keepsPacketsAcrossIt(start: UInt16) {
        var history = PacketHistory()
        for offset in UInt16(0)..<20 { history.store([UInt8(offset)], sequenceNumber: start &+ offset) }
        for offset in UInt16(0)..<20 { #expect(history.packet(sequenceNumber: start &+ offset) == [UInt8(offset)]) }
    }

    @Test func oversizedPacket_notStored() {
        var history = PacketHistory(capacity: 4, maxPacketSize: 10)
        let stored = history.store([UInt8](repeating: 0, count: 11), sequenceNumber: 1)
        #expect(!stored)
        #expect(history.packet(sequenceNumber: 1) == nil)
    }

    @Test func nackWithinARoundTripOfTheSend_findsItInFlight_thenOverdue_andOnceResentInFlightAgain() {
        // 7 sent at 1 s and 8 at 1.01 s; the round trip is 100 ms. A NACK at
        // 1.05 s finds 7 on its way; at 1.2 s it is overdue and resent; a
        // repeated NACK at 1.25 s finds the resend on its way.
        var history = PacketHistory(capacity: 8)
        history.store([9, 9], sequenceNumber: 7, at: .seconds(1))
        history.store([9], sequenceNumber: 8, at: .seconds(1.01))
        #expect(history.fate(of: 7, at: .seconds(1.05), roundTrip: .milliseconds(100)) == .inFlight)
        #expect(history.fate(of: 9, at: .seconds(1.05), roundTrip: .milliseconds(100)) == .unknown)
        #expect(history.fate(of: 7, at: .seconds(1.2), roundTrip: .milliseconds(100)) == .overdue)
        #expect(history.takeForResend(sequenceNumber: 7, at: .seconds(1.2)) == [9, 9])
        #expect(history.fate(of: 7, at: .seconds(1.25), roundTrip: .milliseconds(100)) == .inFlight)
    }

    @Test func nackAHairUnderTheLeastRoundTrip_isALossWithinTheTolerance() {
        // The least round trip is 100 ms; 31 left at 1 s. A NACK sent as soon
        // as 31 arrived comes back within the path's jitter of that: at
        // 1.098 s, with a quarter's tolerance, 30 was lost, not on its way;
        // without one it is taken as on its way. At 1.07 s nothing that
        // followed 30 can have reached the receiver yet.
        var history = PacketHistory(capacity: 64)
        history.store([1], sequenceNumber: 30, at: .seconds(0.999))
        history.store([2], sequenceNumber: 31, at: .seconds(1))
        let roundTrip = Duration.milliseconds(100)
        #expect(history.fate(of: 30, at: .seconds(1.098), roundTrip: roundTrip, tolerance: .milliseconds(25)) == .overdue)
        #expect(history.fate(of: 30, at: .seconds(1.098), roundTrip: roundTrip) == .inFlight)
        #expect(history.fate(of: 30, at: .seconds(1.07), roundTrip: roundTrip, tolerance: .milliseconds(25)) == .inFlight)
    }

    @Test func nackForAPacketNothingHasFollowedYet_isAGuess_notALoss() {
        // A receiver that expects the next packet by the spacing of the last
        // frame asks for each paced packet of a keyframe before it arrives:
        // 20 left at 1 s, 21 not yet, or only just (round trip 1 ms).
        var history = PacketHistory(capacity: 64)
        history.store([1], sequenceNumber: 20, at: .seconds(1))
        #expect(history.fate(of: 20, at: .seconds(1.5), roundTrip: .milliseconds(1)) == .inFlight)
        history.store([2], sequenceNumber: 21, at: .seconds(1.5))
        #expect(history.fate(of: 20, at: .seconds(1.5), roundTrip: .milliseconds(1)) == .inFlight)
        #expect(history.fate(of: 20, at: .seconds(1.502), roundTrip: .milliseconds(1)) == .overdue)
        // The packet after 20 left half a second before 2 s: that long it may have waited on the way.
        #expect(history.followed(20, at: .seconds(2)) == .milliseconds(500))
        #expect(history.followed(21, at: .seconds(2)) == nil)
        // Across the wrap of the 16-bit numbers too.
        history.store([3], sequenceNumber: 65535, at: .seconds(2))
        history.store([4], sequenceNumber: 0, at: .seconds(2))
        #expect(history.fate(of: 65535, at: .seconds(2.1), roundTrip: .milliseconds(1)) == .overdue)
    }
}
