import Congestion
import Encoding
import Media
import RTP
import SRTP
import Transport
import ControlProtocol

/// One connection's figures and decisions, guarded by the connection's lock.
struct ConnectionState {
    /// RFC 3550 leaves the interval to the profile; once a second keeps lip-sync-free video cheap.
    static let senderReportInterval: Duration = .seconds(1)
    /// The stream now sent; replaced by a rebuild or share-again.
    var transceiver: Transceiver
    var ssrc: UInt32 { transceiver.ssrc }
    var destination: SocketAddress
    var bandwidth: SendSideBandwidthEstimator
    var running = true
    var transceivers = 1
    var framesSent = 0
    var keyframesAsked = 0
    var protectErrors = 0
    var sendErrors = 0
    /// Every first send, on any SSRC this connection has had.
    var packetsSent = 0
    /// RFC 3550 §6.4.1: a sender report counts the packets and payload octets sent under its own SSRC, so the
    /// counts start again with a new one.
    var reportCounts = (ssrc: UInt32(0), packets: 0, octets: 0)
    /// Padding sent to probe the path (counted in `packetsSent` too: the SR's packet count is every packet).
    var probePacketsSent = 0
    /// The receiver has asked for a number not yet sent: it waits for each
    /// next packet by the clock, and gives one up as lost when none comes
    /// for a few hundred milliseconds (rtpbin with retransmission: the packet
    /// that does come after a still second is dropped as too late, and its
    /// frame with it). From then on, silence on the stream is filled with keepalives.
    var receiverWaitsByTheClock = false
    /// Padding sent as keepalives (counted in `packetsSent` too).
    var keepalivesSent = 0
    var retransmissions = 0
    /// NACKed packets not resent because retransmissions had used their share of the link.
    var retransmissionsRefused = 0
    /// NACKed packets not resent because they were too old to resend as the same bytes.
    var retransmissionsStale = 0
    var retransmissionMeter = RateMeter()
    var feedbackErrors = 0
    var feedbackDropped = 0
    var feedbackUnauthenticated = 0
    /// Datagrams from a host that is not the receiver's, dropped unread.
    var feedbackFromElsewhere = 0
    var plisReceived = 0
    var firsReceived = 0
    var nacksReceived = 0
    var rembsReceived = 0
    var transportFeedbackReceived = 0
    var receiverReports = 0
    /// The last sender reports' NTP middle 32 bits and when they left, for
    /// the round trip a receiver report's LSR and DLSR give.
    var senderReportsSent: [(compact: UInt32, at: Instant)] = []
    /// A receiver reports on an SR within a few seconds, or not at all.
    static let senderReportsKept = 8
    /// NACKed numbers not sent yet, or sent less than a round trip before the NACK.
    var nackedInFlight = 0
    /// NACKed numbers that transport-wide feedback said arrived.
    var nackedAfterArrival = 0
    /// NACKed packets whose fate transport-wide feedback has not told yet, oldest first.
    private(set) var nacksAwaitingFeedback: [AwaitedNack] = []
    /// The SSRCs the receiver's side has sent authenticated RTCP from, oldest first.
    var feedbackSources: [UInt32] = []
    /// The SSRC the receiver's latest report came from, and whether one from it covered our stream.
    var reporter: UInt32?
    var reporterHearsUs = false
    var lastFractionLost = 0.0

    var glassToPacket = LatencyRecorder()
    var sentMeter = RateMeter()
    var bitrateMeter = RateMeter()
    /// - Parameters:
    ///   - transportWide: the receiver negotiated transport-wide feedback.
    ///   - probePacketSize: the size on the wire of the padding packets probes are sent in.
    init(transceiver: Transceiver, destination: SocketAddress, cap: Int, transportWide: Bool,
         probePacketSize: Int) {
        self.transceiver = transceiver
        self.destination = destination
        bandwidth = SendSideBandwidthEstimator(cap: cap, feedbackKind: transportWide ? .transportWide : .receiverReports,
                                               probePacketSize: probePacketSize, applicationShare: LayerState.encoderShare)
    }

    /// Inbound SRTCP streams kept, each about half a kilobyte in libsrtp: a receiver
    /// that restarts sends from a new SSRC each time, and must not grow the
    /// session without bound. Four covers a receiver, its relay and a restart.
    static let feedbackSourceLimit = 4

    /// Notes authenticated RTCP from `source`; returns a source to forget when over the limit.
    mutating func feedbackArrived(from source: UInt32) -> UInt32? {
        if let known = feedbackSources.firstIndex(of: source) {
            feedbackSources.remove(at: known)
            feedbackSources.append(source)
            return nil
        }
        feedbackSources.append(source)
        return feedbackSources.count > ConnectionState.feedbackSourceLimit ? feedbackSources.removeFirst() : nil
    }

    /// Counts a first send (a retransmission is not a new packet). A packet of a replaced stream, still
    /// leaving when its transceiver was replaced, counts for no sender report.
    mutating func countSent(_ info: PacketInfo) {
        packetsSent += 1
        guard info.ssrc == ssrc else { return }
        if reportCounts.ssrc != ssrc { reportCounts = (ssrc: ssrc, packets: 0, octets: 0) }
        reportCounts.packets += 1
        reportCounts.octets += info.payloadLength
    }

    /// The sender report for the moment `now`: the RTP timestamp of that moment on the stream's media clock
    /// (its timestamp base and the injected clock, as frames are stamped), paired with `ntpTime`, the wall
    /// clock's reading of the same moment, so a receiver can map RTP time to wall time (RFC 3550 §6.4.1).
    func senderReport(now: Instant, ntpTime: UInt64) -> SenderReport {
        let counts = reportCounts.ssrc == ssrc ? reportCounts : (ssrc: ssrc, packets: 0, octets: 0)
        return SenderReport(ssrc: ssrc, ntpTime: ntpTime, rtpTime: transceiver.timestamp(for: now),
                            packetCount: UInt32(truncatingIfNeeded: counts.packets),
                            octetCount: UInt32(truncatingIfNeeded: counts.octets), reports: [])
    }

    /// Retransmissions may take a fifth of the target: on a link that is
    /// already short, resending everything lost only deepens the loss.
    static let retransmissionShare = 0.2

    /// How far under the least round trip a NACK may come and still be about
    /// a lost packet, from a receiver that asks only for gaps: the least round
    /// trip is the fastest of many, and a NACK sent the moment its gap showed
    /// comes back within the path's jitter of it, as often under as over.
    /// Taken as exact, a quarter of screen-receiver's NACKs under 2 % random
    /// loss were taken for guesses and never answered, and each cost a
    /// keyframe. None for a receiver that waits by the clock (it has asked for
    /// a number not sent yet): its NACKs near the round trip are guesses, and
    /// resent, they spent the retransmissions' share.
    static let gapNackTolerance = 0.25

    /// Without RTX, to a receiver that plays out by its clock, a packet first sent longer ago
    /// than the least round trip and this is not resent (docs/behaviour.md §7.6). Resent as the
    /// same bytes, an old packet reads as an original that came late, with a timestamp behind
    /// those the receiver has had since: rtpbin's jitter buffer, which had moved its clock on
    /// past a queue, took one such for the sender's clock going back and set its playout by it,
    /// and showed nothing for 1.5 s after a link stepped down from 3 to 0.6 Mbit/s (packets
    /// resent there were 0.55–0.59 s old); playing out 200 ms behind, it could show none of
    /// them. A receiver that waits for repairs (screen-receiver) still shows what they complete.
    static let staleResendMargin: Duration = .milliseconds(300)
    /// NACKs for packets transport-wide feedback told had arrived, past which a receiver asks by
    /// its clock: rtpbin with transport-cc asked for 1162 in a 35 s share; one that asks only for
    /// gaps may now and then ask for a packet that was only reordered.
    static let byTheClockEvidence = 8

    /// The receiver asks for packets by when it expects them (docs/behaviour.md §7.6): for ones not
    /// sent yet, or for ones that had arrived, behind a queue. Such a receiver gives a packet up at
    /// its latency.
    var receiverAsksByTheClock: Bool { receiverWaitsByTheClock || nackedAfterArrival >= Self.byTheClockEvidence }

    mutating func mayRetransmit(bytes: Int, at now: Instant) -> Bool {
        let budget = Double(bandwidth.target(at: now).bitrate) * ConnectionState.retransmissionShare
        guard retransmissionMeter.rate(at: now) + Double(bytes * 8) <= budget else { return false }
        retransmissionMeter.record(bytes * 8, at: now)
        return true
    }

    /// A receiver that waits by the clock gets a keepalive after this long
    /// with nothing sent: rtpbin gives a number up at its latency (200 ms by default).
    static let keepaliveInterval: Duration = .milliseconds(100)

    /// What a new frame would wait behind (the pacer's queue and the path's) is held under
    /// this: past it new frames wait, since frames queued behind seconds of others only add
    /// delay, and a receiver that plays out at a fixed latency gives them up. A keyframe the
    /// VBV allows (0.3 s of the target at most) leaves in 0.25 s at 1.2 × the target.
    static let maxQueueDelay: Duration = .milliseconds(250)

    /// A keyframe waits while what is queued takes over this to leave, for at most
    /// `keyframeHoldLimit` (docs/behaviour.md §7.5): behind a queue that grows, the target that
    /// would size it is about to fall.
    static let maxKeyframeQueueDelay: Duration = .milliseconds(100)
    static let keyframeHoldLimit: Duration = .milliseconds(500)

    /// A receiver asks a little after it sees a gap, and its NACK and the
    /// answer take a round trip and the pacer's queue.
    static let repairMargin: Duration = .milliseconds(100)

    /// How long after a keyframe's last packet left a receiver's keyframe
    /// request is still about that keyframe, given what waits in the pacer.
    func repairWindow(queued: Duration) -> Duration {
        bandwidth.roundTrip + queued + ConnectionState.repairMargin
    }

    /// The path, not the cap, sets the target.
    func linkLimited(at now: Instant) -> Bool {
        bandwidth.target(at: now).limit.isPath
    }

    func pacingRate(now: Instant) -> Int {
        Int(bandwidth.pacingRate(at: now))
    }

    /// A NACKed packet waiting for transport-wide feedback to say whether it arrived.
    struct AwaitedNack: Sendable {
        var sequence: UInt16
        var transportSequence: UInt16
        var ssrc: UInt32
        var since: Instant
    }

    /// At most this many NACKed packets wait for feedback: a receiver's NACKs may not grow memory.
    static let maxAwaitedNacks = 512
    /// Feedback that has not told of a packet this long after its NACK never will (it was lost,
    /// or the packet's entry was overwritten); the receiver asks again if it still waits.
    static let awaitedNackLifetime: Duration = .seconds(1)

    mutating func awaitFeedback(on nacks: [AwaitedNack]) {
        for nack in nacks where !nacksAwaitingFeedback.contains(where: { $0.sequence == nack.sequence && $0.ssrc == nack.ssrc }) {
            nacksAwaitingFeedback.append(nack)
        }
        nacksAwaitingFeedback.removeFirst(max(0, nacksAwaitingFeedback.count - Self.maxAwaitedNacks))
    }

    /// Takes out the awaited NACKs feedback has now told of: those lost, and how many arrived;
    /// those waited on too long are let go. A receiver that negotiated transport-wide feedback
    /// and never sent it will tell of none: its NACKs are taken at their word.
    mutating func takeNacksFeedbackTold(at now: Instant) -> (lost: [AwaitedNack], arrived: Int) {
        var lost: [AwaitedNack] = []
        var arrived = 0
        let feedbackComes = bandwidth.feedbackKind == .transportWide
        nacksAwaitingFeedback.removeAll { nack in
            switch bandwidth.heardArrived(transportSequenceNumber: nack.transportSequence) {
            case true?: arrived += 1
            case false?: lost.append(nack)
            case nil:
                if now - nack.since >= Self.awaitedNackLifetime { return true }
                if feedbackComes { return false }
                lost.append(nack)
            }
            return true
        }
        return (lost, arrived)
    }
}
