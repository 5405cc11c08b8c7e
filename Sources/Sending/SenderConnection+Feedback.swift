import Foundation
import Media
import RTP
import SRTP
import Transport

extension SenderConnection {
    // MARK: Feedback thread (RTCP in)

    func feedbackLoop() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while lock.withLock({ state.running }) {
            let received: (count: Int, from: SocketAddress)?
            do {
                received = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0, timeout: .milliseconds(200)) }
            } catch {
                lock.withLock { state.feedbackErrors += 1 }
                continue
            }
            guard let (count, from) = received else { continue }
            handleDatagram(&buffer, count: count, from: from)
        }
    }

    /// One datagram from the receiver's side: SRTCP (or plain RTCP where the
    /// share allows it). Anything malformed or unauthenticated is counted and dropped,
    /// and so is anything from a host other than the receiver's (docs/behaviour.md §7.3).
    package func handleDatagram(_ buffer: inout [UInt8], count: Int, from: SocketAddress) {
        let destination = lock.withLock { state.destination }
        guard from.isSameHost(as: destination) || config.rtcpDestination.map(from.isSameHost) == true else {
            lock.withLock { state.feedbackFromElsewhere += 1 }
            return
        }
        guard count >= 8, buffer.withUnsafeBytes({ MuxedPacketKind.classify(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }) == .rtcp else {
            lock.withLock { state.feedbackDropped += 1 }
            return
        }
        var length = count
        if let unprotector = feedbackUnprotector {
            var copy = buffer
            if let plain = try? unprotector.unprotectRTCP(&copy, length: count) {
                buffer = copy
                length = plain
                // The first packet's sender SSRC: the one libsrtp keyed the stream by.
                let source = buffer[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                if let stale = lock.withLock({ state.feedbackArrived(from: source) }) { unprotector.removeStream(ssrc: stale) }
            } else if !config.acceptPlainRTCP {
                lock.withLock { state.feedbackUnauthenticated += 1 }
                return
            }
        }
        let packets: [RTCPPacket]
        do {
            packets = try buffer.withUnsafeBytes { try RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        } catch {
            lock.withLock { state.feedbackDropped += 1 }
            return
        }
        for packet in packets { handle(packet) }
    }

    private func handle(_ packet: RTCPPacket) {
        let now = clock.now
        let ssrc = self.ssrc
        switch packet {
        case .pictureLossIndication(let pli) where pli.mediaSSRC == ssrc || pli.mediaSSRC == 0:
            lock.withLock { state.plisReceived += 1 }
            requestKeyframe(reason: "PLI")
        case .fullIntraRequest(let fir) where fir.entries.contains { $0.ssrc == ssrc }:
            lock.withLock { state.firsReceived += 1 }
            requestKeyframe(reason: "FIR")
        case .genericNACK(let nack) where nack.mediaSSRC == ssrc:
            let lost = nack.lostSequenceNumbers
            var resent = 0
            var refused = 0
            for sequence in lost {
                guard lock.withLock({ state.mayRetransmit(bytes: PacketQueue.slotSize, at: now) }) else {
                    refused += 1
                    continue
                }
                if let packet = history.withLock({ $0.packet(sequenceNumber: sequence) }) {
                    let info = PacketInfo(ssrc: ssrc, sequence: sequence, timestamp: 0, marker: false, keyframe: false,
                                          kind: .retransmission, payloadLength: 0)
                    _ = packet.withUnsafeBytes { bytes in
                        queue.pushFirst(info) { slot in
                            slot.copyMemory(from: bytes)
                            return bytes.count
                        }
                    }
                    resent += 1
                }
            }
            lock.withLock {
                state.nacksReceived += 1
                state.retransmissions += resent
                state.retransmissionsRefused += refused
                state.bandwidth.onNack(sequenceNumbers: lost, at: now)
            }
        case .receiverReport(let rr):
            reportArrived(from: rr.ssrc, covering: rr.reports.contains { $0.ssrc == ssrc })
            for block in rr.reports where block.ssrc == ssrc { receptionReported(block, now: now) }
        case .senderReport(let sr):
            reportArrived(from: sr.ssrc, covering: sr.reports.contains { $0.ssrc == ssrc })
            for block in sr.reports where block.ssrc == ssrc { receptionReported(block, now: now) }
        case .transportFeedback(let feedback):
            // Transport-wide: it speaks of every packet on the transport, whatever SSRC it names.
            lock.withLock {
                state.bandwidth.onTransportFeedback(feedback, at: now)
                state.transportFeedbackReceived += 1
            }
        case .receiverEstimatedMaximumBitrate(let remb) where remb.ssrcs.isEmpty || remb.ssrcs.contains(ssrc):
            lock.withLock {
                state.bandwidth.onREMB(bitrate: Int(clamping: remb.bitrate), at: now)
                state.rembsReceived += 1
            }
        default:
            break
        }
    }

    /// Who reports, and whether it has heard our stream: a restarted receiver reports from a new SSRC.
    private func reportArrived(from reporter: UInt32, covering: Bool) {
        lock.withLock {
            if state.reporter != reporter {
                state.reporter = reporter
                state.reporterHearsUs = false
            }
            if covering { state.reporterHearsUs = true }
        }
    }

    private func receptionReported(_ block: ReceptionReport, now: Instant) {
        lock.withLock {
            state.bandwidth.onReceiverReport(fractionLost: block.lossRatio, at: now)
            state.lastFractionLost = block.lossRatio
            state.receiverReports += 1
        }
    }

    // MARK: RTCP out

    func sendReport() {
        let report = lock.withLock { state.senderReport(now: clock.now, ntpTime: NTPTime.now()) }
        guard var bytes = try? report.marshal() else { return }
        sendRTCP(&bytes)
    }

    func sendGoodbye() {
        guard var bytes = try? Goodbye(sources: [ssrc]).marshal() else { return }
        sendRTCP(&bytes)
    }

    private func sendRTCP(_ bytes: inout [UInt8]) {
        let length = bytes.count
        var wire = length
        if let protector {
            bytes.append(contentsOf: [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength))
            guard let protected = try? protector.protectRTCP(&bytes, length: length) else { return }
            wire = protected
        }
        let destination = config.rtcpDestination ?? lock.withLock { state.destination }
        try? bytes.withUnsafeBytes { try socket.send(UnsafeRawBufferPointer(rebasing: $0[0..<wire]), to: destination) }
    }
}
