import Encoding
import RTP
import SRTP
import Transport
import ControlProtocol

/// An SDP (RFC 8866) a receiver such as ffmpeg or GStreamer can open to take
/// the stream: where it arrives, the codec, the SRTP key (RFC 4568 `a=crypto`)
/// and the SSRC (GStreamer's srtpdec needs it).
public struct SessionDescription: Sendable {
    public var destination: SocketAddress
    public var payloadType: UInt8
    public var codec: ReceiverConfig.Codec
    public var ssrc: UInt32
    public var key: SRTPKey?
    public var rtcpMux: Bool
    public var extensions: HeaderExtensionMap
    /// RTX's payload type and SSRC (RFC 4588), when retransmissions go on a stream of their own.
    public var retransmission: (payloadType: UInt8, ssrc: UInt32)?

    public init(destination: SocketAddress, payloadType: UInt8, codec: ReceiverConfig.Codec, ssrc: UInt32, key: SRTPKey?, rtcpMux: Bool = true,
                extensions: HeaderExtensionMap = .standard, retransmission: (payloadType: UInt8, ssrc: UInt32)? = nil) {
        self.destination = destination
        self.payloadType = payloadType
        self.codec = codec
        self.ssrc = ssrc
        self.key = key
        self.rtcpMux = rtcpMux
        self.extensions = extensions
        self.retransmission = retransmission
    }

    /// The text; it holds the key, so it goes only to the file the user named.
    public var text: String {
        let family = destination.family == .ipv4 ? "IP4" : "IP6"
        let host = destination.host
        var lines = [
            "v=0",
            "o=- \(ssrc) 1 IN \(family) \(host)",
            "s=screenshare",
            "c=IN \(family) \(host)",
            "t=0 0",
            "m=video \(destination.port) \(key == nil ? "RTP/AVP" : "RTP/SAVP") \(payloadType)"
                + (retransmission.map { " \($0.payloadType)" } ?? ""),
        ]
        switch codec {
        case .h264(let id):
            lines.append("a=rtpmap:\(payloadType) H264/90000")
            lines.append("a=fmtp:\(payloadType) packetization-mode=1;profile-level-id=\(id)")
        case .vp8:
            lines.append("a=rtpmap:\(payloadType) VP8/90000")
        }
        if let retransmission {
            lines.append("a=rtpmap:\(retransmission.payloadType) rtx/90000")
            lines.append("a=fmtp:\(retransmission.payloadType) apt=\(payloadType)")
        }
        if let key {
            lines.append("a=crypto:1 \(key.profile.sdpName) inline:\(key.base64)")
        }
        if let id = extensions.absoluteSendTimeID { lines.append("a=extmap:\(id) \(AbsoluteSendTime.uri)") }
        if let sequence = extensions.transportSequenceNumber {
            lines.append("a=extmap:\(sequence.extensionID) \(TransportSequenceNumber.uri)")
            lines.append("a=rtcp-fb:\(payloadType) transport-cc")
        }
        if rtcpMux { lines.append("a=rtcp-mux") }
        if let retransmission {
            lines.append("a=ssrc-group:FID \(ssrc) \(retransmission.ssrc)")
        }
        lines.append("a=ssrc:\(ssrc) cname:screenshare")
        if let retransmission { lines.append("a=ssrc:\(retransmission.ssrc) cname:screenshare") }
        lines.append("a=recvonly")
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
