/// Seeds for the packet targets, made by the project's own packetizers and
/// marshallers so that the fuzzer starts inside the protocol.
enum PacketSeeds {
    /// A keyframe's packets, numbered across the 16-bit wrap, each with an abs-send-time and a transport-wide number.
    static func rtpStream(vp8: Bool) -> [[UInt8]] {
        var stream = OutgoingRTPStream(ssrc: 0x1234_5678, payloadType: 96, firstSequence: 65530, timestampBase: 90_000)
        var packets: [[UInt8]] = []
        let frame: [UInt8] = vp8 ? [0x10] + (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
            : [0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x1F, 0, 0, 0, 1, 0x68, 0xCE, 0x3C, 0x80, 0, 0, 0, 1, 0x65] + (0..<3000).map { UInt8(2 + $0 % 250) }
        func emit(_ payload: UnsafeRawBufferPointer, _ last: Bool) {
            var packet: [UInt8] = []
            _ = stream.startPacket(marker: last, timestamp: 9000, into: &packet)
            packet.append(contentsOf: payload)
            packet.withUnsafeMutableBytes { AbsoluteSendTime.stamp($0, at: Instant.zero + .milliseconds(250)) }
            packets.append(packet)
        }
        if vp8 {
            var packetizer = VP8Packetizer()
            frame.withUnsafeBytes { packetizer.packetize($0, emit: emit) }
        } else {
            var packetizer = H264Packetizer()
            frame.withUnsafeBytes { packetizer.packetize($0, emit: emit) }
        }
        return packets
    }

    static func rtp() -> [[UInt8]] {
        var withTransportWide: [UInt8] = []
        RTPHeader(marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 1, ssrc: 2).marshal(into: &withTransportWide)
        HeaderExtensionBlock([AbsoluteSendTime.placeholder, TransportSequenceNumber()!.element(0x0102)])!.append(to: &withTransportWide)
        withTransportWide += [0x65, 1, 2, 3]
        return rtpStream(vp8: false).prefix(2) + [withTransportWide]
    }

    static func rtcp() -> [[UInt8]] {
        let report = ReceptionReport(ssrc: 0x1234_5678, fractionLost: 5, totalLost: 16, highestSequence: 2, jitter: 0, lastSR: 0,
                                     delaySinceLastSR: 0)
        var messages: [any RTCPMessage] = [ReceiverReport(ssrc: 1, reports: [report])]
        messages.append(PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x1234_5678))
        messages.append(ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 1_500_000, ssrcs: [0x1234_5678]))
        messages.append(GenericNACK(senderSSRC: 1, mediaSSRC: 0x1234_5678, lostSequenceNumbers: [5, 6, 9, 40]))
        messages.append(SenderReport(ssrc: 0x1234_5678, ntpTime: 0xE000_0000_8000_0000, rtpTime: 90_000, packetCount: 10, octetCount: 12_000))
        messages.append(Goodbye(sources: [0x1234_5678]))
        messages += twccMessages()
        return messages.compactMap { try? $0.marshal() }
    }

    private static func twccMessages() -> [TransportFeedback] {
        var builder = TransportFeedbackBuilder(senderSSRC: 1, mediaSSRC: 0x1234_5678)
        // Across the 16-bit wrap, some lost, some far apart (large deltas).
        var arrivals: [TransportFeedbackBuilder.Arrival] = []
        for i in 0..<40 {
            let step: Int64 = i % 5 == 0 ? 90 : 3
            let time: Instant? = i % 7 == 3 ? nil : Instant.zero + .milliseconds(1000 + Int64(i) * step)
            arrivals.append(TransportFeedbackBuilder.Arrival(sequenceNumber: UInt16(truncatingIfNeeded: 65520 + i), time: time))
        }
        return builder.build(arrivals)
    }

    static func twcc() -> [[UInt8]] {
        twccMessages().compactMap { try? $0.marshal() }
    }

    static func depacketize() -> [[UInt8]] {
        var shuffled = rtpStream(vp8: false)
        shuffled.swapAt(0, 2)
        return [[0] + FuzzRecords.join(rtpStream(vp8: false)), [1] + FuzzRecords.join(rtpStream(vp8: true)), [0] + FuzzRecords.join(shuffled)]
    }
}
