import Congestion
import Encoding
import Media
import RTP
import SRTP
import Transport
import ControlProtocol

/// What a share is asked for, as a whole: the same for every receiver.
public struct ShareParameters: Sendable {
    public var policy: SendPolicy
    public var fps: Int
    /// Motion is held within level 3.1 from the start of a share started in Motion.
    public var startedInMotion: Bool

    public init(policy: SendPolicy, fps: Int) {
        self.policy = policy
        self.fps = min(fps, 30)
        startedInMotion = policy == .motion
    }
}

/// One connection's figures and decisions, guarded by the connection's lock.
struct ConnectionState {
    /// docs/behaviour.md §2.5: the last frame is encoded again once a second while the screen is still.
    static let stillRepeatInterval: Duration = .seconds(1)
    /// RFC 3550 leaves the interval to the profile; once a second keeps lip-sync-free video cheap.
    static let senderReportInterval: Duration = .seconds(1)
    /// The encoder aims below the target, which counts every header the link
    /// carries (RTP, extensions, SRTP, UDP, IP): the rest is room for
    /// retransmissions and x264's overshoot.
    static let encoderShare = 0.85
    /// Encoding that takes more than 80 % of the time leaves no room to catch up: the CPU is the limit.
    static let cpuBusyFraction = 0.8

    var share: ShareParameters
    /// The stream now sent; replaced by a rebuild or share-again.
    var transceiver: Transceiver
    var ssrc: UInt32 { transceiver.ssrc }
    var destination: SocketAddress
    var bandwidth: SendSideBandwidthEstimator
    let started: Instant
    var running = true
    var pending: Surface?
    var gate = KeyframeGate()
    /// Which encode thread is current; older ones exit (or, stuck, are abandoned).
    var encodeGeneration = 0
    /// When the current encode call began; nil between calls.
    var encodeBusySince: Instant?
    var abandonedEncoders = 0
    var transceivers = 1
    var encoderSettings: EncoderSettings?
    /// Recovery's "a third smaller for 30 s": the scale, and until when.
    var shrink: (factor: Double, until: Instant)?
    var balanced = BalancedSizer()
    var encodedSize = (0, 0)

    var framesIn = 0
    var framesSuperseded = 0
    var framesDroppedLate = 0
    /// Frames a policy let fall to hold its size on a short link.
    var framesSkippedForRate = 0
    /// Frames not encoded because the pacer's queue was already long.
    var framesHeldForLink = 0
    var framesEncoded = 0
    var framesSent = 0
    var stillRepeats = 0
    /// Still-frame repeats (and keyframes from the last frame) handed to the encoder, made or not.
    var repeatsTaken = 0
    var keyframesMade = 0
    var keyframesAsked = 0
    var encoderErrors = 0
    var protectErrors = 0
    var sendErrors = 0
    /// Every first send, on any SSRC this connection has had.
    var packetsSent = 0
    /// RFC 3550 §6.4.1: a sender report counts the packets and payload octets sent under its own SSRC, so the
    /// counts start again with a new one.
    var reportCounts = (ssrc: UInt32(0), packets: 0, octets: 0)
    /// Padding sent to probe the path (counted in `packetsSent` too: the SR's packet count is every packet).
    var probePacketsSent = 0
    var retransmissions = 0
    /// NACKed packets not resent because retransmissions had used their share of the link.
    var retransmissionsRefused = 0
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
    /// The least round trip a receiver report measured (LSR, DLSR): what a
    /// NACKed packet must have been gone for before it can be lost. Not the
    /// latest: a full bottleneck queue adds its delay to that, and a NACK for
    /// a packet lost at its entrance then comes back sooner than the round trip.
    /// Transport-wide feedback's round trip includes the receiver's wait, too long for this.
    var leastRoundTrip: Duration?
    /// NACKed numbers not sent yet, or sent less than a round trip before the NACK.
    var nackedInFlight = 0
    /// The SSRCs the receiver's side has sent authenticated RTCP from, oldest first.
    var feedbackSources: [UInt32] = []
    /// The SSRC the receiver's latest report came from, and whether one from it covered our stream.
    var reporter: UInt32?
    var reporterHearsUs = false
    var lastFractionLost = 0.0

    var glassToPacket = LatencyRecorder()
    var encodedMeter = RateMeter()
    var sentMeter = RateMeter()
    var bitrateMeter = RateMeter()
    /// Microseconds spent encoding, a second: how busy the encoder is.
    var encodeTime = RateMeter()

    /// - Parameters:
    ///   - transportWide: the receiver negotiated transport-wide feedback.
    ///   - probePacketSize: the size on the wire of the padding packets probes are sent in.
    init(share: ShareParameters, transceiver: Transceiver, destination: SocketAddress, cap: Int, transportWide: Bool,
         probePacketSize: Int, started: Instant) {
        self.share = share
        self.transceiver = transceiver
        self.destination = destination
        bandwidth = SendSideBandwidthEstimator(cap: cap, feedbackKind: transportWide ? .transportWide : .receiverReports,
                                               probePacketSize: probePacketSize, applicationShare: ConnectionState.encoderShare)
        self.started = started
    }

    /// The encoder settings for a frame of this size now, and the frame rate
    /// to encode at. A policy that lets frames fall skips frames rather than
    /// change the encoder's rate: a new rate would need a new encoder, and a keyframe.
    mutating func plan(sourceWidth: Int, sourceHeight: Int, codec: ReceiverConfig.Codec, now: Instant, levelLimit: H264Level?) -> (settings: EncoderSettings, fps: Int) {
        let target = bandwidth.target(at: now)
        let encoderBitrate = Int(Double(target.bitrate) * ConnectionState.encoderShare)
        let recoveryScale = shrink.map { now < $0.until ? $0.factor : 1 } ?? 1
        var limit = levelLimit
        if share.startedInMotion { limit = min(limit ?? .level3_1, .level3_1) }
        var balancedScale: Double?
        if share.policy == .balanced {
            let bits = EncodingPlan.balancedBitsPerPixel(policy: share.policy, sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                                         fps: share.fps, bitrate: encoderBitrate)
            balancedScale = balanced.update(bitsPerPixel: bits, settled: target.limit != .probing, at: now)
        }
        let plan = EncodingPlan.make(
            policy: share.policy, sourceWidth: sourceWidth, sourceHeight: sourceHeight, fps: share.fps,
            bitrate: encoderBitrate, levelLimit: limit, balancedScale: balancedScale, shrink: recoveryScale)
        var profile = ProfileLevelID.Profile.constrainedBaseline
        if case .h264(let id) = codec { profile = id.profile }
        let settings = EncoderSettings.carrying(plan, shareFPS: share.fps, bitrate: encoderBitrate, target: target.bitrate,
                                                profile: profile, favourDetail: share.policy == .detail,
                                                screenContent: share.policy != .motion)
        return (settings, plan.fps)
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

    mutating func mayRetransmit(bytes: Int, at now: Instant) -> Bool {
        let budget = Double(bandwidth.target(at: now).bitrate) * ConnectionState.retransmissionShare
        guard retransmissionMeter.rate(at: now) + Double(bytes * 8) <= budget else { return false }
        retransmissionMeter.record(bytes * 8, at: now)
        return true
    }

    /// The pacer's queue is held under this: past it new frames wait, since
    /// frames queued behind seconds of others only add delay. A keyframe the
    /// VBV allows (0.3 s of the target) leaves in 0.25 s at 1.2 × the target.
    static let maxQueueDelay: Duration = .milliseconds(250)

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
}
