import Congestion
import RTP
import SRTP
import Transport
import Encoding
import Media

extension SenderConnection {
    /// The figures behind the status lines for this receiver.
    package func status(capturedFPS: Double, watchdog: String) -> ShareStatus {
        let now = clock.now
        return lock.withLock {
            var s = ShareStatus()
            s.width = state.encodedSize.0
            s.height = state.encodedSize.1
            s.sentFPS = state.sentMeter.rate(at: now)
            s.fps = s.sentFPS
            s.encodedFPS = state.encodedMeter.rate(at: now)
            s.capturedFPS = capturedFPS
            s.bitrate = Int(state.bitrateMeter.rate(at: now))
            let target = state.bandwidth.target(at: now)
            s.targetBitrate = target.bitrate
            s.codec = config.codec.name
            s.path = config.rtcpDestination == nil ? "direct" : "via SFU"
            s.keyframesMade = state.keyframesMade
            s.keyframesAsked = state.keyframesAsked
            s.framesDroppedLate = state.framesDroppedLate
            s.framesDroppedBusy = Int(pool.counters.droppedAllHeld)
            s.packetsDroppedPacer = queue.dropped
            s.watchdog = watchdog
            s.framesSent = state.framesSent
            s.framesEncoded = state.framesEncoded
            s.glassToPacketP50 = state.glassToPacket.percentile(0.5)
            s.glassToPacketP99 = state.glassToPacket.percentile(0.99)
            s.limitation = limitation(target: target, now: now)
            s.feedback = target.limit == .noFeedback ? .none
                : state.bandwidth.feedbackKind == .transportWide ? .transportWide : .receiverReports
            return s
        }
    }

    /// Bandwidth limits a share when something below the cap sets the target;
    /// the CPU does when encoding takes most of each frame period.
    private func limitation(target: SendSideBandwidthEstimator.Target, now: Instant) -> ShareStatus.Limitation {
        let busy = state.encodeTime.rate(at: now) / 1_000_000
        if busy > ConnectionState.cpuBusyFraction { return .cpu }
        return target.limit.isPath ? .bandwidth : .none
    }

    /// Whether encoded frames are waiting on the link: packets are queued for
    /// the pacer (docs/behaviour.md §4.3, §7.5). A target below the cap is no
    /// such sign: a short link that has drained its queue holds nothing back,
    /// so it cannot excuse an encoder that has stopped.
    package var isHeldBackByLink: Bool {
        queue.queued > 0
    }

    /// Counters the watchdog and diagnostics read. Frames in are captures
    /// offered and still-frame repeats handed to the encoder: on a still
    /// screen the repeat is all that goes in, and an encoder that stalls
    /// there must still be seen taking frames in and giving nothing out.
    package var counters: (framesIn: Int, encoded: Int, sent: Int) {
        lock.withLock { (state.framesIn + state.repeatsTaken, state.framesEncoded, state.framesSent) }
    }

    /// What the receiver's reports say about the stream now sent, for the restart detector.
    package var reportsHeard: (reporter: UInt32?, hearsUs: Bool, packetsSent: Int) {
        lock.withLock { (state.reporter, state.reporterHearsUs, state.packetsSent) }
    }

    package var stillRepeats: Int { lock.withLock { state.stillRepeats } }
    /// How long what waits in the pacer takes to leave.
    package var pacerDelay: Duration { queue.delay }
    package var framesHeldForLink: Int { lock.withLock { state.framesHeldForLink } }
    package var keyframesMade: Int { lock.withLock { state.keyframesMade } }
}

extension SenderConnection {
    package func setPolicy(_ policy: SendPolicy) {
        lock.withLock {
            state.share.policy = policy
            state.balanced = BalancedSizer()
        }
    }
}

extension SenderConnection {
    package var destination: SocketAddress { lock.withLock { state.destination } }

    /// Datagrams dropped unread because they came from a host other than the receiver's.
    package var feedbackFromElsewhere: Int { lock.withLock { state.feedbackFromElsewhere } }

    /// What the bandwidth estimate is made of now. Call with `lock` held.
    private var estimateLine: String {
        let now = clock.now
        let e = state.bandwidth
        let target = e.target(at: now)
        let acknowledged = e.acknowledgedBitrate.map { "\(Int($0) / 1000) kbit/s" } ?? "none"
        return "estimate: target \(target.bitrate / 1000) kbit/s (\(target.limit.rawValue)), from \(e.feedbackKind == .transportWide ? "transport-wide feedback" : "reports and NACKs"), "
            + "delay-based \(Int(e.delayBased.bitrate) / 1000) kbit/s (\(e.delayBased.usage)), loss-based \(Int(e.lossBasedBitrate) / 1000) kbit/s, "
            + "acknowledged \(acknowledged), round trip \(Int(e.roundTrip.inMilliseconds)) ms"
            + (e.isApplicationLimited ? ", application-limited" : "")
            + (e.nacksAreGuesses ? ", NACKs ask ahead (only losses behind a queue count)" : "")
    }

    /// The figures diagnostics show for this receiver.
    package var diagnosticLines: [String] {
        lock.withLock {
            var lines = [
                "SSRC \(state.ssrc), transceivers \(state.transceivers), encoder generation \(state.encodeGeneration), "
                    + "abandoned encoders \(state.abandonedEncoders)",
                "frames: in \(state.framesIn) (and \(state.repeatsTaken) still-frame repeats), superseded \(state.framesSuperseded), encoded \(state.framesEncoded), "
                    + "sent \(state.framesSent), still repeats \(state.stillRepeats), late \(state.framesDroppedLate), "
                    + "let fall for the rate \(state.framesSkippedForRate), held for the link \(state.framesHeldForLink)",
                "packets: sent \(state.packetsSent) (probe padding \(state.probePacketsSent)), retransmitted \(state.retransmissions) (refused \(state.retransmissionsRefused), "
                    + "asked for while in flight \(state.nackedInFlight)), "
                    + "pacer drops \(queue.dropped), queued \(Int(queue.delay.inMilliseconds)) ms, "
                    + "send errors \(state.sendErrors), protect errors \(state.protectErrors)",
                "feedback: PLI \(state.plisReceived), FIR \(state.firsReceived), NACK \(state.nacksReceived), "
                    + "RR \(state.receiverReports) (last loss \(Int(state.lastFractionLost * 100)) %), REMB \(state.rembsReceived), "
                    + "dropped \(state.feedbackDropped), unauthenticated \(state.feedbackUnauthenticated), "
                    + "from elsewhere \(state.feedbackFromElsewhere), transport-cc \(state.transportFeedbackReceived); last report from SSRC "
                    + (state.reporter.map { "\($0) (\(state.reporterHearsUs ? "hears" : "does not hear") this stream)" } ?? "none"),
                estimateLine,
                "keyframes: made \(state.keyframesMade), asked \(state.keyframesAsked), answered \(state.gate.requestsAnswered), "
                    + "coalesced \(state.gate.requestsCoalesced) (left to a repair \(state.gate.requestsLeftToRepair))",
            ]
            if let e = state.encoderSettings {
                lines.append("encoder: \(config.codec == .vp8 ? "libvpx VP8" : "x264 " + e.preset) \(e.width)×\(e.height) at \(e.fps) fps, \(e.bitrate / 1000) kbit/s, "
                             + "\(e.profile.rawValue) level \(e.level), \(e.favourDetail ? "tuned for text" : "tuned for motion"), "
                             + "errors \(state.encoderErrors)")
            }
            return lines
        }
    }
}
