import Encoding
import RTP
import SRTP
import Transport

/// Everything the sender needs to know about one receiver.
public struct ReceiverConfig: Sendable {
    public enum Codec: Sendable, Equatable {
        case h264(ProfileLevelID)
        case vp8

        public var name: String {
            switch self {
            case .h264: "H264"
            case .vp8: "VP8"
            }
        }
    }

    public var id: String
    public var displayName: String
    public var destination: SocketAddress
    /// Where RTCP goes when it is not muxed with RTP (an SFU's separate RTCP port).
    public var rtcpDestination: SocketAddress?
    public var bind: SocketAddress?
    /// nil sends plain RTP (loopback only, or with explicit permission).
    public var srtp: SRTPKey?
    public var payloadType: UInt8
    public var ssrc: UInt32?
    public var codec: Codec
    public var bitrateCap: Int
    /// Accept unprotected RTCP feedback (an SFU such as Janus sends it plain).
    public var acceptPlainRTCP: Bool
    /// A level the receiver insists on for every policy (nil: only Motion is held to 3.1).
    public var levelLimit: H264Level?
    /// The first stream's first sequence number; random when nil, as RFC 3550 asks. Set only by
    /// `share --first-sequence`, so a test can reach the wrap of the numbers in seconds.
    public var firstSequence: UInt16?
    /// The header extensions the receiver negotiated, under its ids; with
    /// the transport-wide sequence number the estimate is made from its feedback.
    public var headerExtensions: HeaderExtensionMap
    /// RTX (RFC 4588) where the receiver negotiated it: NACKed packets go
    /// again on a stream of their own. Without it they go as the same bytes.
    public var retransmission: Retransmission?

    public struct Retransmission: Sendable, Equatable {
        /// The `rtx/90000` payload type whose `apt` is the media's.
        public var payloadType: UInt8
        /// The SSRC the call client announced for it (`a=ssrc-group:FID`); random when nil.
        public var ssrc: UInt32?

        public init(payloadType: UInt8, ssrc: UInt32? = nil) {
            self.payloadType = payloadType
            self.ssrc = ssrc
        }
    }

    public init(
        id: String, displayName: String, destination: SocketAddress, rtcpDestination: SocketAddress? = nil,
        bind: SocketAddress? = nil, srtp: SRTPKey?, payloadType: UInt8 = 96, ssrc: UInt32? = nil,
        codec: Codec = .h264(.chromiumDefault), bitrateCap: Int = 4_000_000, acceptPlainRTCP: Bool = false,
        levelLimit: H264Level? = nil, headerExtensions: HeaderExtensionMap = .standard
    ) {
        self.id = id
        self.displayName = displayName
        self.destination = destination
        self.rtcpDestination = rtcpDestination
        self.bind = bind
        self.srtp = srtp
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.codec = codec
        self.bitrateCap = bitrateCap
        self.acceptPlainRTCP = acceptPlainRTCP
        self.levelLimit = levelLimit
        self.headerExtensions = headerExtensions
    }
}
