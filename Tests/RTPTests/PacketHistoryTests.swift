import Testing
@testable import RTP

struct PacketHistoryTests {
    @Test func lookup_findsStoredPacket() {
        var history = PacketHistory(capacity: 8)
        history.store([1, 2, 3], sequenceNumber: 100)
        history.store([4, 5], sequenceNumber: 101)
        #expect(history.packet(sequenceNumber: 100) == [1, 2, 3])
        #expect(history.packet(sequenceNumber: 101) == [4, 5])
        #expect(history.packet(sequenceNumber: 102) == nil)
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
}
