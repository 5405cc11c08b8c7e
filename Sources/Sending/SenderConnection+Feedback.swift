import Congestion
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
            let received: UDPSocket.Datagram?
            do {
                received = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0, timeout: .milliseconds(200)) }
            } catch {
                lock.withLock { state.feedbackErrors += 1 }
                continue
            }
            guard let received else { continue }
            handleDatagram(&buffer, count: received.count, from: received.from)
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
            receiverAskedForKeyframe(reason: "PLI")
        case .fullIntraRequest(let fir) where fir.entries.contains { $0.ssrc == ssrc }:
            lock.withLock { state.firsReceived += 1 }
            receiverAskedForKeyframe(reason: "FIR")
        case .genericNACK(let nack) where nack.mediaSSRC == ssrc:
            resolveNacksAwaitingFeedback(now: now)
            answer(nack, now: now)
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
            resolveNacksAwaitingFeedback(now: now)
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

    /// Answers a NACK from the history, within the retransmissions' share of
    /// the target. A number not sent yet, or that no later packet can yet have
    /// followed to the receiver, is still on its way (rtpbin asks for the
    /// packet it expects next before it is due): it is neither resent nor
    /// counted as lost. Where transport-wide feedback comes, it says what
    /// arrived: a packet it told of as arrived is not resent, and one
    /// it has not told of yet waits for it (`resolveNacksAwaitingFeedback`).
    /// rtpbin asks by its clock, packet after packet, for those a growing queue
    /// holds, and its NACKs come hundreds of milliseconds later: resent, they
    /// spent the retransmissions' fifth of the target on a link already full,
    /// with nothing lost.
    private func answer(_ nack: GenericNACK, now: Instant) {
        let (roundTrip, transceiver, byTheClock, transportWide) = lock.withLock {
            (state.bandwidth.leastRoundTrip ?? .zero, state.transceiver,
             state.receiverWaitsByTheClock, state.bandwidth.feedbackKind == .transportWide)
        }
        let tolerance = byTheClock ? .zero : roundTrip * ConnectionState.gapNackTolerance
        var overdue: [UInt16] = []
        var awaiting: [ConnectionState.AwaitedNack] = []
        var early = 0
        var arrived = 0
        var ahead = false
        for sequence in nack.lostSequenceNumbers {
            let fate = history.withLock { $0.fate(of: sequence, at: now, roundTrip: roundTrip, tolerance: tolerance) }
            guard fate == .overdue else {
                early += 1
                if fate == .unknown, transceiver.notNumberedYet(sequence) { ahead = true }
                continue
            }
            if transportWide, let stamped = history.withLock({ $0.transportSequenceNumber(of: sequence) }) {
                switch lock.withLock({ state.bandwidth.heardArrived(transportSequenceNumber: stamped) }) {
                case true?:
                    arrived += 1
                    continue
                case nil:
                    awaiting.append(.init(sequence: sequence, transportSequence: stamped, ssrc: nack.mediaSSRC, since: now))
                    continue
                case false?:
                    break
                }
            }
            overdue.append(sequence)
        }
        let (resent, refused) = resend(overdue, ssrc: nack.mediaSSRC, transceiver: transceiver, now: now)
        // How long each waited beyond the round trip after its successor left. One whose successor
        // left moments ago may be a guess by the clock: resent all the same, but no loss.
        let told = overdue.compactMap { sequence in
            history.withLock { $0.followed(sequence, at: now) }.map { (sequence, $0 - roundTrip) }
        }.filter { $0.1 >= NackLossMeter.tooYoungToTell }
        let losses = told.map(\.0)
        // The packet after the newest loss shows least what a queue on the way holds.
        let waited = told.map(\.1).min()
        let newlyWaiting = lock.withLock { () -> Bool in
            let newlyWaiting = ahead && !state.receiverWaitsByTheClock
            if ahead { state.receiverWaitsByTheClock = true }
            state.nacksReceived += 1
            state.retransmissions += resent
            state.retransmissionsRefused += refused
            state.nackedInFlight += early
            state.nackedAfterArrival += arrived
            state.awaitFeedback(on: awaiting)
            let guesses = early + arrived + awaiting.count + overdue.count - losses.count
            state.bandwidth.onNack(sequenceNumbers: losses, waited: waited, guesses: guesses, at: now)
            return newlyWaiting
        }
        // It waits for the next number by the clock: from now on, silence on the stream is filled.
        if newlyWaiting { queue.wake() }
    }

    /// After transport-wide feedback, or a NACK: NACKed packets it now says were lost are resent,
    /// those it says arrived are let go, and those it still has not told of are let go after a
    /// while. Once the receiver is known to send none, they are all resent, at its next NACK or
    /// the next sender report, whichever comes first.
    func resolveNacksAwaitingFeedback(now: Instant) {
        let (lost, arrived, transceiver) = lock.withLock { () -> ([ConnectionState.AwaitedNack], Int, Transceiver) in
            let (lost, arrived) = state.takeNacksFeedbackTold(at: now)
            return (lost, arrived, state.transceiver)
        }
        guard !lost.isEmpty || arrived > 0 else { return }
        var resent = 0
        var refused = 0
        for (ssrc, group) in Dictionary(grouping: lost, by: \.ssrc) {
            let counts = resend(group.map(\.sequence), ssrc: ssrc, transceiver: transceiver, now: now)
            resent += counts.resent
            refused += counts.refused
        }
        lock.withLock {
            state.retransmissions += resent
            state.retransmissionsRefused += refused
            state.nackedAfterArrival += arrived
        }
    }

    /// Resends `sequences` from the history, within the retransmissions' share of the target: on
    /// the RTX stream where the receiver negotiated it, else as the same bytes. Each goes ahead
    /// of everything queued.
    private func resend(
        _ sequences: [UInt16], ssrc: UInt32, transceiver: Transceiver, now: Instant
    ) -> (resent: Int, refused: Int) {
        var resends: [(bytes: [UInt8], info: PacketInfo)] = []
        var refused = 0
        var stale = 0
        let (leastRoundTrip, byTheClock) = lock.withLock { (state.bandwidth.leastRoundTrip, state.receiverAsksByTheClock) }
        // docs/behaviour.md §7.6: only the same bytes again can be too old; an RTX packet is new.
        let oldest = transceiver.retransmission == nil && byTheClock
            ? (leastRoundTrip ?? SendSideBandwidthEstimator.assumedRoundTrip) + ConnectionState.staleResendMargin : nil
        for sequence in sequences {
            if let oldest, let age = history.withLock({ $0.age(of: sequence, at: now) }), age > oldest {
                stale += 1
                continue
            }
            guard lock.withLock({ state.mayRetransmit(bytes: PacketQueue.slotSize, at: now) }) else {
                refused += 1
                continue
            }
            guard let packet = history.withLock({ $0.takeForResend(sequenceNumber: sequence, at: now) }) else { continue }
            if transceiver.retransmission != nil {
                if let rtx = packet.withUnsafeBytes({ transceiver.rtxPacket(carrying: $0) }) { resends.append(rtx) }
            } else {
                resends.append((packet, PacketInfo(ssrc: ssrc, sequence: sequence, timestamp: 0, marker: false,
                                                   keyframe: false, kind: .retransmission, payloadLength: 0)))
            }
        }
        if stale > 0 { lock.withLock { state.retransmissionsStale += stale } }
        if !resends.isEmpty { lock.withLock { layer }?.resent(at: now) }
        // The last first: they leave in order.
        for resend in resends.reversed() {
            _ = resend.bytes.withUnsafeBytes { bytes in
                queue.pushFirst(resend.info) { slot in
                    slot.copyMemory(from: bytes)
                    return bytes.count
                }
            }
        }
        return (resends.count, refused)
    }

    private func receptionReported(_ block: ReceptionReport, now: Instant) {
        lock.withLock {
            if let sent = state.senderReportsSent.last(where: { $0.compact == block.lastSR && block.lastSR != 0 }) {
                // RFC 3550 §6.4.1: the time since that SR, less what the receiver held it.
                let held = Duration.nanoseconds((Int64(block.delaySinceLastSR) * 1_000_000_000) >> 16)
                let roundTrip = now - sent.at - held
                if roundTrip > .zero {
                    state.bandwidth.onRoundTripTime(roundTrip)
                }
            }
            state.bandwidth.onReceiverReport(fractionLost: block.lossRatio, at: now)
            state.lastFractionLost = block.lossRatio
            state.receiverReports += 1
        }
    }

    // MARK: RTCP out

    func sendReport() {
        let report = lock.withLock { () -> SenderReport in
            let now = clock.now
            let report = state.senderReport(now: now, ntpTime: NTPTime.now())
            state.senderReportsSent.append((UInt32(truncatingIfNeeded: report.ntpTime >> 16), now))
            if state.senderReportsSent.count > ConnectionState.senderReportsKept { state.senderReportsSent.removeFirst() }
            return report
        }
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
