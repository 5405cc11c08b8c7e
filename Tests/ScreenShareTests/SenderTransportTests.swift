import ControlProtocol
import Media
import RTP
@testable import Sending
import Testing
import Transport

/// The sender's socket and what it takes from it (docs/behaviour.md §7.3), and its sender reports (RFC 3550 §6.4.1).
struct SenderTransportTests {
    @Test func bindAddress_isLoopbackOnlyWhenEveryDestinationIs() throws {
        let v4 = try SocketAddress(parsing: "127.0.0.1:5004"), v6 = try SocketAddress(parsing: "[::1]:5004")
        let mapped = try SocketAddress(parsing: "[::ffff:127.0.0.1]:5004"), away = try SocketAddress(parsing: "192.0.2.1:5004")
        #expect(SocketAddress.bindAddress(reaching: [v4]).description == "127.0.0.1:0")
        #expect(SocketAddress.bindAddress(reaching: [v6], port: 7).description == "[::1]:7")
        #expect(SocketAddress.bindAddress(reaching: [mapped]).description == "[::ffff:127.0.0.1]:0")
        #expect(SocketAddress.bindAddress(reaching: [v4, away]).description == "0.0.0.0:0")
        #expect(SocketAddress.bindAddress(reaching: [try SocketAddress(parsing: "[2001:db8::1]:1")]).description == "[::]:0")
    }

    /// A loopback receiver is sent to from a loopback socket: nothing off this host can reach it.
    @Test func loopbackReceiver_isSentToFromLoopback() throws {
        let share = try SimulatedShare(scenario: .still)
        defer { share.stop() }
        #expect(share.connection.localAddress.isLoopback)
        #expect(share.connection.localAddress.host == "127.0.0.1")
    }

    /// Feedback is read only from the receiver's host (its destination's, or its RTCP destination's), on
    /// any port; anything else is counted and dropped unread.
    @Test func feedbackFromAnotherHost_isDroppedAndCounted() throws {
        let share = try SimulatedShare(scenario: .still)
        defer { share.stop() }
        let connection = share.connection
        func pli(from: String, to c: SenderConnection) throws {
            var bytes = try PictureLossIndication(senderSSRC: 1, mediaSSRC: c.ssrc).marshal()
            c.handleDatagram(&bytes, count: bytes.count, from: try SocketAddress(parsing: from))
        }
        let before = connection.feedbackReceived
        try pli(from: "127.0.0.2:5004", to: connection)
        try pli(from: "[::1]:5004", to: connection)
        #expect(connection.feedbackReceived == before)
        #expect(connection.feedbackFromElsewhere == 2)
        try pli(from: "127.0.0.1:1", to: connection)
        #expect(connection.feedbackReceived == before + 1)

        let split = try share.session.addReceiver(ReceiverConfig(id: "split", displayName: "Split", destination: .ipv4Loopback(port: 9),
                                                                 rtcpDestination: try SocketAddress(parsing: "127.0.0.3:9"), srtp: nil))
        defer { share.session.removeReceiver(split) }
        try pli(from: "127.0.0.3:40000", to: split)
        try pli(from: "127.0.0.4:40000", to: split)
        #expect(split.feedbackReceived == 1 && split.feedbackFromElsewhere == 1)
    }

    /// The SR pairs the RTP time of the moment it is made, on the stream's own clock, with that moment's NTP
    /// time; its counts are the current SSRC's and start again with a new one.
    @Test func senderReport_isTheRTPTimeOfNow_withCountsOfItsOwnSSRC() {
        let first = Transceiver(ssrc: 11, payloadType: 96, codec: .vp8, extensions: .standard)
        var state = ConnectionState(transceiver: first,
                                    destination: .ipv4Loopback(port: 9), cap: 4_000_000,
                                    transportWide: false, probePacketSize: 250)
        func sent(_ ssrc: UInt32, _ payload: Int) -> PacketInfo {
            PacketInfo(ssrc: ssrc, sequence: 1, timestamp: 0, marker: true, keyframe: false, kind: .media, payloadLength: payload)
        }
        // A frame captured at 1 s, its two packets sent; the report made at 1.5 s.
        let frame = first.timestamp(for: .seconds(1))
        state.countSent(sent(11, 1000))
        state.countSent(sent(11, 200))
        let report = state.senderReport(now: .seconds(1.5), ntpTime: 0xE000_0000_0000_0000)
        #expect(report.ssrc == 11 && report.ntpTime == 0xE000_0000_0000_0000)
        #expect(report.rtpTime == frame &+ 45_000)
        #expect(report.packetCount == 2 && report.octetCount == 1200)

        // A new transceiver: its own SSRC and timestamp base. A packet of the old stream still leaving counts for neither.
        let second = Transceiver(ssrc: 22, payloadType: 96, codec: .vp8, extensions: .standard)
        state.transceiver = second
        state.countSent(sent(11, 1000))
        let fresh = state.senderReport(now: .seconds(2), ntpTime: 1)
        #expect(fresh.ssrc == 22 && fresh.packetCount == 0 && fresh.octetCount == 0)
        #expect(fresh.rtpTime == second.timestamp(for: .seconds(2)))
        state.countSent(sent(22, 500))
        let later = state.senderReport(now: .seconds(3), ntpTime: 2)
        #expect(later.packetCount == 1 && later.octetCount == 500)
        #expect(state.packetsSent == 4)
    }
}
