import Media

/// Notices a receiver that restarted and cannot read the stream it is sent
/// (docs/behaviour.md §4.4).
///
/// A receiver restarted with the same SRTP key starts a new SRTP session,
/// which takes the roll-over counter of every stream to be 0 (RFC 3711
/// §3.3.1). Once the sender's sequence numbers have wrapped, its counter is
/// 1 or more, and not one packet of the stream authenticates there: no
/// keyframe can help, only a new SSRC, whose stream starts again at 0. SDES
/// keys carry no roll-over counter, and GStreamer's `srtpdec`, Chromium and
/// libsrtp itself never guess one, so the sender must act, and it can tell:
/// a restarted receiver's RTP session reports from a new SSRC (`rtpbin` and
/// `screen-receiver` send receiver reports with no report block while they
/// receive nothing), and its reports cover none of our streams.
///
/// Once a reporter has covered the stream we send, a report from another
/// SSRC that has not covered it for `answerLimit`, while packets left, gets
/// one new stream. A reporter that never heard us (a wrong key, a receiver
/// that does not report blocks) gets nothing: a new SSRC would not help.
public struct ReceiverRestartDetector: Sendable {
    /// A receiver that reads the stream covers it in its next report, at most a second away
    /// (RTCP every second from `rtpbin`, Chromium and `screen-receiver`); two seconds is two
    /// reports missed, far sooner than a stall report (4 s) and the ladder's rebuild (6 s more).
    public static let answerLimit: Duration = .seconds(2)

    /// What the receiver's RTCP says about the stream we send, read by the I/O layer each tick.
    public struct Reports: Equatable, Sendable {
        /// The SSRC its latest report came from: its RTP session, new when it restarts.
        public var reporter: UInt32?
        /// A report from `reporter` has covered the stream we send now.
        public var reporterHearsUs: Bool
        /// RTP packets sent so far on this connection.
        public var packetsSent: Int

        public init(reporter: UInt32? = nil, reporterHearsUs: Bool = false, packetsSent: Int = 0) {
            self.reporter = reporter
            self.reporterHearsUs = reporterHearsUs
            self.packetsSent = packetsSent
        }
    }

    public enum Action: RecoveryAction, Equatable {
        /// A new SSRC, so a new SRTP stream with roll-over 0 and a new decoder at the receiver.
        case newStream(reason: String)

        public var step: RecoveryStep { .newStream }

        public var reason: String {
            switch self {
            case .newStream(let reason): reason
            }
        }
    }

    /// The last reporter seen covering our stream.
    private var hearing: UInt32?
    /// A reporter other than `hearing` that has not covered our stream, since when, with the packet count then.
    private var stranger: (ssrc: UInt32, since: Instant, packets: Int)?

    public init() {}

    public mutating func tick(now: Instant, reports: Reports) -> [Action] {
        guard let reporter = reports.reporter else { return [] }
        if reports.reporterHearsUs {
            hearing = reporter
            stranger = nil
            return []
        }
        guard let known = hearing, reporter != known else {
            stranger = nil
            return []
        }
        if stranger?.ssrc != reporter { stranger = (reporter, now, reports.packetsSent) }
        guard let s = stranger, now - s.since >= Self.answerLimit, reports.packetsSent != s.packets else { return [] }
        hearing = nil
        stranger = nil
        return [.newStream(reason: "the receiver restarted (its reports come from a new SSRC) and has not covered our "
                           + "stream for \((now - s.since).spoken): a restarted SRTP receiver takes the roll-over counter to be 0, "
                           + "so a new SSRC starts a stream it can read")]
    }
}
