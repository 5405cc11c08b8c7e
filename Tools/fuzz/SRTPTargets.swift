/// The SRTP/SRTCP unprotect path as the sender and the receiver run it, under
/// a fixed key. The first byte of an input says: bit 0, protect each record
/// with the peer's session first (so authentic packets reach the parsers
/// behind the check); bit 1, accept plain RTCP as an SFU's feedback is; bit 2,
/// AEAD_AES_128_GCM rather than AES_CM_128_HMAC_SHA1_80. The rest is records
/// of datagrams, in the order they arrive.
enum SRTPTargets {
    struct Flags {
        let protectFirst: Bool
        let acceptPlainRTCP: Bool
        let profile: SRTPProfile

        init(_ byte: UInt8) {
            protectFirst = byte & 1 != 0
            acceptPlainRTCP = byte & 2 != 0
            profile = byte & 4 == 0 ? .aes128CmHmacSha1_80 : .aeadAes128Gcm
        }
    }

    static func key(_ profile: SRTPProfile) -> SRTPKey {
        try! SRTPKey(profile: profile, bytes: (0..<profile.keyLength).map { UInt8(truncatingIfNeeded: $0 * 11 + 3) })
    }

    /// A session, and each new SSRC in it, takes milliseconds to set up (libsrtp's NSS contexts): the
    /// sessions are kept for `inputsPerSession` inputs, as a running share keeps them, so replay and
    /// rollover state carries from one input to the next within those. An input that crashes is
    /// reproduced alone, on fresh sessions.
    final class Sessions {
        static let inputsPerSession = 256
        nonisolated(unsafe) private static var kept: [SRTPProfile: Sessions] = [:]

        /// The far end's protector, and ours to unprotect.
        let peer: SRTPSession
        let unprotector: SRTPSession
        private var inputs = 0

        private init(_ profile: SRTPProfile) {
            peer = try! SRTPSession(key: SRTPTargets.key(profile), direction: .sender)
            unprotector = try! SRTPSession(key: SRTPTargets.key(profile), direction: .receiver)
        }

        static func forInput(_ profile: SRTPProfile) -> Sessions {
            var sessions = kept[profile] ?? Sessions(profile)
            if sessions.inputs >= inputsPerSession { sessions = Sessions(profile) }
            sessions.inputs += 1
            kept[profile] = sessions
            return sessions
        }
    }

    /// What the sender's feedback thread does with a datagram (`SenderConnection.handleDatagram`):
    /// RTCP only, SRTCP unless plain RTCP is accepted, then each packet handled.
    static func sender(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let flags = Flags(first)
        let sessions = Sessions.forInput(flags.profile)
        let (peer, unprotector) = (sessions.peer, sessions.unprotector)
        var estimator = SendSideBandwidthEstimator(cap: 4_000_000, feedbackKind: .transportWide)
        var now = Instant.zero
        for record in FuzzRecords(UnsafeRawBufferPointer(rebasing: bytes[1...])) {
            now = now + .milliseconds(5)
            _ = estimator.onPacketSent(size: 1200, at: now)
            var buffer = Array(record) + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
            var count = record.count
            if flags.protectFirst {
                guard MuxedPacketKind.classify(record) == .rtcp, let protected = try? peer.protectRTCP(&buffer, length: count) else { continue }
                count = protected
            }
            guard count >= 8, MuxedPacketKind.classify(Array(buffer[0..<count])) == .rtcp else { continue }
            var copy = buffer
            var length = count
            if let plain = try? unprotector.unprotectRTCP(&copy, length: count) {
                buffer = copy
                length = plain
            } else if !flags.acceptPlainRTCP {
                continue
            }
            guard let packets = try? RTCPPacket.parseCompound(Array(buffer[0..<length])) else { continue }
            for packet in packets { handleAsSender(packet, estimator: &estimator, now: now) }
        }
        _ = estimator.target(at: now)
    }

    private static func handleAsSender(_ packet: RTCPPacket, estimator: inout SendSideBandwidthEstimator, now: Instant) {
        switch packet {
        case .genericNACK(let nack):
            let lost = nack.lostSequenceNumbers
            precondition(lost.count <= 17 * nack.pairs.count, "a NACK named more packets than its pairs hold")
            estimator.onNack(sequenceNumbers: lost, at: now)
        case .receiverReport(let rr):
            for block in rr.reports {
                precondition((0...1).contains(block.lossRatio))
                estimator.onReceiverReport(fractionLost: block.lossRatio, at: now)
            }
        case .receiverEstimatedMaximumBitrate(let remb):
            estimator.onREMB(bitrate: Int(clamping: remb.bitrate), at: now)
        case .transportFeedback(let feedback):
            estimator.onTransportFeedback(feedback, at: now)
        default:
            break
        }
    }

    /// What the project's receiver does with a datagram (`ScreenReceiver.handleDatagram`):
    /// SRTP into the receive path, SRTCP into its sender-report bookkeeping.
    static func receiver(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let flags = Flags(first)
        let sessions = Sessions.forInput(flags.profile)
        let (peer, unprotector) = (sessions.peer, sessions.unprotector)
        var path = FuzzReceivePath(codec: first & 8 == 0 ? .h264 : .vp8)
        var statistics = ReceptionStatistics(ssrc: 1)
        for record in FuzzRecords(UnsafeRawBufferPointer(rebasing: bytes[1...])) {
            guard let kind = MuxedPacketKind.classify(record) else { continue }
            var buffer = Array(record) + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
            var count = record.count
            if flags.protectFirst {
                let protected = kind == .rtp ? try? peer.protectRTP(&buffer, length: count) : try? peer.protectRTCP(&buffer, length: count)
                guard let protected else { continue }
                count = protected
            }
            switch kind {
            case .rtp:
                guard let plain = try? unprotector.unprotectRTP(&buffer, length: count) else { continue }
                buffer.withUnsafeBytes { path.receive(UnsafeRawBufferPointer(rebasing: $0[0..<plain])) }
            case .rtcp:
                guard let plain = try? unprotector.unprotectRTCP(&buffer, length: count),
                      let packets = try? RTCPPacket.parseCompound(Array(buffer[0..<plain])) else { continue }
                for case .senderReport(let sr) in packets { statistics.recordSenderReport(sr, arrival: .zero) }
            }
        }
        path.finish()
        _ = statistics.makeReport(now: .seconds(1))
    }
}

enum SRTPSeeds {
    static func sender() -> [[UInt8]] {
        let plain = PacketSeeds.rtcp()
        let profiles: [(UInt8, SRTPProfile)] = [(0, .aes128CmHmacSha1_80), (4, .aeadAes128Gcm)]
        var seeds = profiles.map { [$0.0 | 1] + FuzzRecords.join(plain) }
        seeds.append([2] + FuzzRecords.join(plain))
        for (flag, profile) in profiles {
            let peer = try! SRTPSession(key: SRTPTargets.key(profile), direction: .sender)
            seeds.append([flag] + FuzzRecords.join(plain.compactMap { protect($0, rtcp: true, with: peer) }))
        }
        return seeds
    }

    static func receiver() -> [[UInt8]] {
        let packets = PacketSeeds.rtpStream(vp8: false)
        let profiles: [(UInt8, SRTPProfile)] = [(0, .aes128CmHmacSha1_80), (4, .aeadAes128Gcm)]
        var seeds = profiles.map { [$0.0 | 1] + FuzzRecords.join(packets) }
        seeds.append([9] + FuzzRecords.join(PacketSeeds.rtpStream(vp8: true)))
        for (flag, profile) in profiles {
            let peer = try! SRTPSession(key: SRTPTargets.key(profile), direction: .sender)
            seeds.append([flag] + FuzzRecords.join(packets.compactMap { protect($0, rtcp: false, with: peer) }))
        }
        return seeds
    }

    private static func protect(_ packet: [UInt8], rtcp: Bool, with session: SRTPSession) -> [UInt8]? {
        var buffer = packet + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
        let length = rtcp ? try? session.protectRTCP(&buffer, length: packet.count) : try? session.protectRTP(&buffer, length: packet.count)
        return length.map { Array(buffer[0..<$0]) }
    }
}
