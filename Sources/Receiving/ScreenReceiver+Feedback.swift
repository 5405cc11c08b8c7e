import Media
import RTP
import SRTP
import Transport

extension ScreenReceiver {
    func requestKeyframe(now: Instant, reason: String) {
        guard now - lastPLI >= ScreenReceiver.pliInterval, let ssrc = stream?.ssrc else { return }
        lastPLI = now
        figures.plisSent += 1
        sendRTCP(.pictureLossIndication(PictureLossIndication(senderSSRC: ownSSRC, mediaSSRC: ssrc)))
        output.log(.debug, "receiver", "PLI: \(reason)")
    }

    func sendNACK(_ lost: [UInt16], mediaSSRC: UInt32) {
        figures.nacksSent += 1
        figures.lostPackets += lost.count
        sendRTCP(.genericNACK(GenericNACK(senderSSRC: ownSSRC, mediaSSRC: mediaSSRC, lostSequenceNumbers: lost)))
    }

    /// RR with a report block for the current stream, and REMB with the
    /// receiver's own estimate, in one compound packet. With no stream yet
    /// (nothing arrived, or nothing authenticated) an RR with no report block
    /// (RFC 3550 §6.4.2), as `rtpbin` sends: it tells the sender this
    /// receiver is there and hears nothing of its stream.
    func sendReceiverReport(now: Instant) {
        guard let ssrc = stream?.ssrc, let block = stream?.statistics.makeReport(now: now) else {
            var builder = RTCPCompoundBuilder()
            try? builder.add(ReceiverReport(ssrc: ownSSRC))
            send(builder.bytes)
            return
        }
        let estimate = estimator.estimate(at: now, loss: block.lossRatio)
        figures.rembsSent += 1
        var builder = RTCPCompoundBuilder()
        try? builder.add(ReceiverReport(ssrc: ownSSRC, reports: [block]))
        try? builder.add(ReceiverEstimatedMaximumBitrate(senderSSRC: ownSSRC, bitrate: UInt64(estimate), ssrcs: [ssrc]))
        send(builder.bytes)
    }

    func sendGoodbye() {
        guard let bytes = try? Goodbye(sources: [ownSSRC]).marshal() else { return }
        send(bytes)
    }

    func handleRTCP(_ buffer: inout [UInt8], count: Int, from: SocketAddress, now: Instant) {
        var length = count
        if let unprotector {
            guard let plain = try? unprotector.unprotectRTCP(&buffer, length: count) else {
                figures.srtpFailures += 1
                return
            }
            length = plain
        }
        guard let packets = try? buffer.withUnsafeBytes({ try RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }) else {
            figures.malformed += 1
            return
        }
        latch(from)
        for case .senderReport(let sr) in packets where sr.ssrc == stream?.ssrc {
            stream?.statistics.recordSenderReport(sr, arrival: now)
        }
        for case .goodbye(let bye) in packets {
            output.event("bye", [("ssrcs", .array(bye.sources.map { .int(Int($0)) }))],
                         human: "the sender said goodbye (RTCP BYE)")
        }
    }

    private func sendRTCP(_ packet: RTCPPacket) {
        var bytes: [UInt8] = []
        guard (try? packet.marshal(into: &bytes)) != nil else { return }
        send(bytes)
    }

    private func send(_ plain: [UInt8]) {
        guard let peer else { return }
        var bytes = plain
        var length = bytes.count
        if let protector {
            bytes.append(contentsOf: [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength))
            guard let protected = try? protector.protectRTCP(&bytes, length: length) else { return }
            length = protected
        }
        try? socket.send(Array(bytes[0..<length]), to: peer)
    }
}
