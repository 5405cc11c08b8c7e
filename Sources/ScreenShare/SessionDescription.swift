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

    public init(destination: SocketAddress, payloadType: UInt8, codec: ReceiverConfig.Codec, ssrc: UInt32, key: SRTPKey?, rtcpMux: Bool = true,
                extensions: HeaderExtensionMap = .standard) {
        self.destination = destination
        self.payloadType = payloadType
        self.codec = codec
        self.ssrc = ssrc
        self.key = key
        self.rtcpMux = rtcpMux
        self.extensions = extensions
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
            "m=video \(destination.port) \(key == nil ? "RTP/AVP" : "RTP/SAVP") \(payloadType)",
        ]
        switch codec {
        case .h264(let id):
            lines.append("a=rtpmap:\(payloadType) H264/90000")
            lines.append("a=fmtp:\(payloadType) packetization-mode=1;profile-level-id=\(id)")
        case .vp8:
            lines.append("a=rtpmap:\(payloadType) VP8/90000")
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
        lines.append("a=ssrc:\(ssrc) cname:screenshare")
        lines.append("a=recvonly")
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
