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
        let encoding = layerFigures
        return lock.withLock {
            var s = ShareStatus()
            s.width = encoding.counts.encodedSize.0
            s.height = encoding.counts.encodedSize.1
            s.sentFPS = state.sentMeter.rate(at: now)
            s.fps = s.sentFPS
            s.encodedFPS = encoding.encodedFPS
            s.capturedFPS = capturedFPS
            s.bitrate = Int(state.bitrateMeter.rate(at: now))
            let target = state.bandwidth.target(at: now)
            s.targetBitrate = target.bitrate
            s.codec = config.codec.name
            s.path = config.rtcpDestination == nil ? "direct" : "via SFU"
            s.layer = encoding.id
            s.keyframesMade = encoding.counts.keyframesMade
            s.keyframesAsked = state.keyframesAsked
            s.framesDroppedLate = encoding.counts.framesDroppedLate
            s.framesDroppedBusy = encoding.framesDroppedBusy
            s.packetsDroppedPacer = queue.dropped
            s.watchdog = watchdog
            s.framesSent = state.framesSent
            s.framesEncoded = encoding.counts.framesEncoded
            s.glassToPacketP50 = state.glassToPacket.percentile(0.5)
            s.glassToPacketP99 = state.glassToPacket.percentile(0.99)
            s.limitation = encoding.busy > LayerState.cpuBusyFraction ? .cpu : target.limit.isPath ? .bandwidth : .none
            s.feedback = target.limit == .noFeedback ? .none
                : state.bandwidth.feedbackKind == .transportWide ? .transportWide : .receiverReports
            return s
        }
    }

    /// What this receiver's layer has encoded; nothing before it has joined one.
    var layerFigures: EncoderLayer.Figures {
        lock.withLock { layer }?.figures ?? .none
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
        let encoding = layerFigures
        return lock.withLock { (encoding.counts.framesIn + encoding.counts.repeatsTaken, encoding.counts.framesEncoded, state.framesSent) }
    }

    /// What the receiver's reports say about the stream now sent, for the restart detector.
    package var reportsHeard: (reporter: UInt32?, hearsUs: Bool, packetsSent: Int) {
        lock.withLock { (state.reporter, state.reporterHearsUs, state.packetsSent) }
    }

    package var stillRepeats: Int { layerFigures.counts.stillRepeats }
    /// How long what waits in the pacer takes to leave.
    package var pacerDelay: Duration { queue.delay }
    package var framesHeldForLink: Int { layerFigures.counts.framesHeldForLink }
    package var keyframesMade: Int { layerFigures.counts.keyframesMade }
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
        let e = layerFigures
        return lock.withLock {
            var lines = [
                "SSRC \(state.ssrc), transceivers \(state.transceivers), layer \(e.id) (\(e.members) receivers), "
                    + "encoder generation \(e.counts.encodeGeneration), abandoned encoders \(e.counts.abandonedEncoders)",
                "frames: in \(e.counts.framesIn) (and \(e.counts.repeatsTaken) still-frame repeats), superseded \(e.counts.framesSuperseded), encoded \(e.counts.framesEncoded), "
                    + "sent \(state.framesSent), still repeats \(e.counts.stillRepeats), late \(e.counts.framesDroppedLate), "
                    + "let fall for the rate \(e.counts.framesSkippedForRate), held for the link \(e.counts.framesHeldForLink), "
                    + "missed by a receiver behind \(e.counts.framesMissedBehind)",
                "packets: sent \(state.packetsSent) (probe padding \(state.probePacketsSent), keepalives \(state.keepalivesSent)), retransmitted \(state.retransmissions) (refused \(state.retransmissionsRefused), too old \(state.retransmissionsStale), "
                    + "asked for while in flight \(state.nackedInFlight), after they arrived \(state.nackedAfterArrival)), "
                    + "pacer drops \(queue.dropped), queued \(Int(queue.delay.inMilliseconds)) ms, "
                    + "send errors \(state.sendErrors), protect errors \(state.protectErrors)",
                "feedback: PLI \(state.plisReceived), FIR \(state.firsReceived), NACK \(state.nacksReceived) (naming \(state.bandwidth.lossesNamedByNacks) packets), "
                    + "RR \(state.receiverReports) (last loss \(Int(state.lastFractionLost * 100)) %), REMB \(state.rembsReceived), "
                    + "dropped \(state.feedbackDropped), unauthenticated \(state.feedbackUnauthenticated), "
                    + "from elsewhere \(state.feedbackFromElsewhere), transport-cc \(state.transportFeedbackReceived); last report from SSRC "
                    + (state.reporter.map { "\($0) (\(state.reporterHearsUs ? "hears" : "does not hear") this stream)" } ?? "none"),
                estimateLine,
                "keyframes: made \(e.counts.keyframesMade), asked \(state.keyframesAsked), answered \(e.counts.gate.requestsAnswered), "
                    + "coalesced \(e.counts.gate.requestsCoalesced) (left to a repair \(e.counts.gate.requestsLeftToRepair))",
            ]
            if let s = e.counts.encoderSettings {
                lines.append("encoder: \(config.codec == .vp8 ? "libvpx VP8" : "x264 " + s.preset) \(s.width)×\(s.height) at \(s.fps) fps, \(s.bitrate / 1000) kbit/s, "
                             + "\(s.profile.rawValue) level \(s.level), \(s.favourDetail ? "tuned for text" : "tuned for motion"), "
                             + "errors \(e.counts.encoderErrors)")
            }
            return lines
        }
    }
}
