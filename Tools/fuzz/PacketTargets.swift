/// Datagrams from the network, before or after SRTP: RTP with its header
/// extensions, RTCP, transport-wide feedback, and frames put back together.
enum PacketTargets {
    /// An RTP packet: the payload lies inside the packet; every extension
    /// element found lies inside the header; stamping abs-send-time and the
    /// transport-wide number changes nothing but their own bytes.
    static func rtp(_ bytes: UnsafeRawBufferPointer) {
        _ = MuxedPacketKind.classify(bytes)
        guard let packet = try? RTPPacket.parse(bytes) else { return }
        let range = packet.payloadRange
        precondition(range.lowerBound >= RTPHeader.fixedSize && range.lowerBound <= range.upperBound && range.upperBound <= bytes.count)
        for id in HeaderExtensionBlock.validIDs {
            if let data = HeaderExtensionBlock.locate(id: id, in: bytes) {
                precondition(data.lowerBound > RTPHeader.fixedSize && data.upperBound <= range.lowerBound, "element \(id) outside the header")
            }
        }
        _ = AbsoluteSendTime.read(bytes)
        let transportWide = TransportSequenceNumber()!
        var copy = Array(bytes)
        copy.withUnsafeMutableBytes { raw in
            if transportWide.stamp(raw, sequenceNumber: 0xBEEF) {
                precondition(transportWide.read(UnsafeRawBufferPointer(raw)) == 0xBEEF, "a stamped number did not read back")
            }
            AbsoluteSendTime.stamp(raw, at: Instant.zero + .milliseconds(1234))
        }
        let stamped = try? RTPPacket.parse(copy)
        precondition(stamped == packet, "stamping changed the header or the payload's place")
        precondition(copy[range].elementsEqual(bytes[range]), "stamping changed the payload")
        // Read as RTX (RFC 4588), and an original wrapped and read back, as the receiver and sender do.
        if let original = try? RetransmissionPacket.unwrap(bytes, payloadType: 96, ssrc: 1) {
            precondition((try? RTPPacket.parse(original)) != nil, "an RTX packet's original does not parse")
        }
        var rtx: [UInt8] = []
        if RetransmissionPacket.wrap(bytes, payloadType: 97, ssrc: 2, sequenceNumber: 3, into: &rtx) != nil {
            let back = rtx.withUnsafeBytes { try? RetransmissionPacket.unwrap($0, payloadType: packet.header.payloadType, ssrc: packet.header.ssrc) }
            guard let back, let again = try? RTPPacket.parse(back) else { preconditionFailure("an original wrapped as RTX did not come back") }
            precondition(again.header.sequenceNumber == packet.header.sequenceNumber && back[again.payloadRange].elementsEqual(bytes[range]),
                         "RTX did not carry the original's number and payload")
        }
    }

    /// An RTCP compound: every packet that parses must marshal and parse back to itself.
    static func rtcp(_ bytes: UnsafeRawBufferPointer) {
        guard let packets = try? RTCPPacket.parseCompound(bytes) else { return }
        for packet in packets {
            guard packet.message != nil else { continue }
            var out: [UInt8] = []
            guard (try? packet.marshal(into: &out)) != nil else { continue }
            let again = try? RTCPPacket.parseCompound(out)
            precondition(again == [packet], "RTCP \(packet) did not survive a round trip")
        }
    }

    /// Transport-wide feedback: it marshals and parses back to itself, and the
    /// send-side estimate it feeds stays within its bounds.
    static func twcc(_ bytes: UnsafeRawBufferPointer) {
        guard let feedback = try? TransportFeedback.parse(bytes) else { return }
        let again = (try? feedback.marshal()).flatMap { try? TransportFeedback.parse($0) }
        precondition(again == feedback, "transport-wide feedback did not survive a round trip")
        var estimator = SendSideBandwidthEstimator(cap: 4_000_000, feedbackKind: .transportWide)
        for i in 0..<128 { _ = estimator.onPacketSent(size: 1200, at: Instant.zero + .milliseconds(Int64(i))) }
        estimator.onTransportFeedback(feedback, at: Instant.zero + .milliseconds(200))
        estimator.onTransportFeedback(feedback, at: Instant.zero + .milliseconds(300))
        let target = estimator.target(at: Instant.zero + .milliseconds(300))
        precondition((SendSideBandwidthEstimator.minimumBitrate...4_000_000).contains(target.bitrate), "target \(target.bitrate) out of bounds")
    }

    /// A run of RTP packets (the first byte picks H.264 or VP8) through the
    /// receiver's reorder buffer and depacketizer, a millisecond apart.
    static func depacketize(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        var path = FuzzReceivePath(codec: first & 1 == 0 ? .h264 : .vp8)
        for record in FuzzRecords(UnsafeRawBufferPointer(rebasing: bytes[1...])) {
            path.receive(record)
        }
        path.finish()
    }
}

/// The receiver's steps for one plain RTP packet, as `ScreenReceiver` takes
/// them: statistics, send time, reorder buffer, depacketizer.
struct FuzzReceivePath {
    private var statistics: ReceptionStatistics?
    private var reorder = ReorderBuffer()
    private var depacketizer: StreamDepacketizer
    private var now = Instant.zero

    init(codec: ReceivedCodec) {
        depacketizer = StreamDepacketizer(codec)
    }

    mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        now = now + .milliseconds(1)
        guard let packet = try? RTPPacket.parse(bytes) else { return }
        if statistics?.ssrc != packet.header.ssrc { statistics = ReceptionStatistics(ssrc: packet.header.ssrc) }
        statistics?.record(sequenceNumber: packet.header.sequenceNumber, rtpTimestamp: packet.header.timestamp, arrival: now)
        _ = statistics?.makeReport(now: now)
        let held = ReorderBuffer.Packet(bytes: Array(bytes), payloadRange: packet.payloadRange, header: packet.header,
                                        arrival: now, sendTime: AbsoluteSendTime.read(bytes))
        push(reorder.insert(held))
        // Every so often a gap is old enough to give up on.
        if packet.header.sequenceNumber & 0x7 == 0 { push(reorder.expire(now: now + ReorderBuffer.patience)) }
    }

    mutating func finish() {
        push(reorder.expire(now: now + ReorderBuffer.patience))
    }

    private mutating func push(_ packets: [ReorderBuffer.Packet]) {
        for p in packets {
            let frame = p.bytes.withUnsafeBytes { raw in
                depacketizer.push(UnsafeRawBufferPointer(rebasing: raw[p.payloadRange]), sequenceNumber: p.header.sequenceNumber,
                                  timestamp: p.header.timestamp, marker: p.header.marker)
            }
            if let frame { precondition(frame.data.count <= FrameAssembly.maxFrameBytes, "a frame grew past its bound") }
        }
    }
}
