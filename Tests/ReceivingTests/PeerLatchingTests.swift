import Events
import Media
@testable import Receiving
import RTP
import SRTP
import Testing
import Transport

/// docs/behaviour.md §6.2: the receiver sends its feedback to where authenticated packets come from. A
/// datagram that does not authenticate — junk, or a replay of a real packet from somewhere else — neither
/// takes the feedback away nor points it at a spoofed address.
struct PeerLatchingTests {
    static let key = try! SRTPKey(profile: .aes128CmHmacSha1_80, bytes: (0..<30).map { UInt8($0 * 3 + 1) })
    let sender = SocketAddress.ipv4Loopback(port: 40_000)
    let stranger = try! SocketAddress(parsing: "192.0.2.66:5004")

    func receiver(key: SRTPKey?) throws -> ScreenReceiver {
        var options = ScreenReceiver.Options(listen: .ipv4Loopback(port: 0), key: key)
        options.duration = 0
        return try ScreenReceiver(options: options, output: EventOutput(format: .json) { _, _ in }, clock: ManualClock())
    }

    /// One H.264 packet, protected when a session is given.
    func packet(_ sequence: UInt16, protectedBy session: SRTPSession?) throws -> [UInt8] {
        var bytes: [UInt8] = []
        RTPPacket.marshal(header: RTPHeader(marker: true, payloadType: 96, sequenceNumber: sequence, timestamp: 9000, ssrc: 77),
                          payload: [0x41, 0x9A, 0x20], into: &bytes)
        guard let session else { return bytes }
        let length = bytes.count
        bytes += [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
        return Array(bytes[0..<(try session.protectRTP(&bytes, length: length))])
    }

    func deliver(_ bytes: [UInt8], from: SocketAddress, to receiver: ScreenReceiver) {
        var buffer = bytes + [UInt8](repeating: 0, count: 64)
        receiver.handleDatagram(&buffer, count: bytes.count, from: from, now: .zero)
    }

    @Test func srtp_latchesOnlyAuthenticatedPackets() throws {
        let receiver = try receiver(key: Self.key)
        let protector = try SRTPSession(key: Self.key, direction: .sender)
        let first = try packet(1, protectedBy: protector)
        deliver(first, from: sender, to: receiver)
        #expect(receiver.peer == sender)

        // Junk that looks like RTP and like RTCP, a forged packet, and a replay of a real one.
        deliver([0x80, 0x60, 0, 9] + [UInt8](repeating: 7, count: 40), from: stranger, to: receiver)
        deliver([0x81, 0xC9, 0, 7] + [UInt8](repeating: 7, count: 40), from: stranger, to: receiver)
        var forged = try packet(2, protectedBy: protector)
        forged[forged.count - 1] ^= 1
        deliver(forged, from: stranger, to: receiver)
        deliver(first, from: stranger, to: receiver)
        #expect(receiver.peer == sender)
        #expect(receiver.figures.srtpFailures == 4)

        // The sender itself moving is followed: its next packet authenticates.
        let moved = SocketAddress.ipv4Loopback(port: 40_002)
        deliver(try packet(3, protectedBy: protector), from: moved, to: receiver)
        #expect(receiver.peer == moved)
    }

    @Test func plainRTP_latchesOnlyPacketsThatParse() throws {
        let receiver = try receiver(key: nil)
        deliver(try packet(1, protectedBy: nil), from: sender, to: receiver)
        #expect(receiver.peer == sender)
        deliver([0x80, 0x60, 0, 9], from: stranger, to: receiver)
        deliver([0x12, 0x34, 0x56, 0x78, 9, 9, 9, 9], from: stranger, to: receiver)
        #expect(receiver.peer == sender)
        #expect(receiver.figures.malformed == 2)
    }
}
