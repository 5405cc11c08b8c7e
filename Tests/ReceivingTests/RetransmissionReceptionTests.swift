import Events
import Media
@testable import Receiving
import RTP
import Testing
import Transport

/// The receiver's side of RTX (RFC 4588): a packet of the RTX payload type
/// carries a lost one, which goes on to the stream being received.
struct RetransmissionReceptionTests {
    let sender = SocketAddress.ipv4Loopback(port: 40_000)

    func receiver() throws -> ScreenReceiver {
        var options = ScreenReceiver.Options(listen: .ipv4Loopback(port: 0), key: nil)
        options.duration = 0
        options.retransmissionPayloadType = 97
        return try ScreenReceiver(options: options, output: EventOutput(format: .json) { _, _ in }, clock: ManualClock())
    }

    func media(_ sequence: UInt16) -> [UInt8] {
        var bytes: [UInt8] = []
        RTPPacket.marshal(header: RTPHeader(marker: false, payloadType: 96, sequenceNumber: sequence, timestamp: 9000, ssrc: 77),
                          payload: [0x7C, 0x85, UInt8(truncatingIfNeeded: sequence)], into: &bytes)
        return bytes
    }

    func deliver(_ bytes: [UInt8], to receiver: ScreenReceiver) {
        var buffer = bytes + [UInt8](repeating: 0, count: 64)
        receiver.handleDatagram(&buffer, count: bytes.count, from: sender, now: .zero)
    }

    @Test func rtxPacket_fillsTheGapItsOriginalLeft() throws {
        let receiver = try receiver()
        var rtx: [UInt8] = []
        _ = media(11).withUnsafeBytes { RetransmissionPacket.wrap($0, payloadType: 97, ssrc: 88, sequenceNumber: 500, into: &rtx) }
        // Before any media: nothing to put it in.
        deliver(rtx, to: receiver)
        #expect(receiver.figures.malformed == 1 && receiver.figures.retransmissionsReceived == 0)

        deliver(media(10), to: receiver)
        deliver(media(12), to: receiver)
        #expect(receiver.figures.nacksSent == 1)
        deliver(rtx, to: receiver)
        #expect(receiver.figures.retransmissionsReceived == 1)
        #expect(receiver.stream?.ssrc == 77, "the RTX SSRC is no new stream")
        #expect(receiver.figures.ssrcChanges == 0)
        // The reorder buffer no longer waits for 11: 13 goes straight on.
        deliver(media(13), to: receiver)
        #expect(receiver.figures.nacksSent == 1)
    }
}
