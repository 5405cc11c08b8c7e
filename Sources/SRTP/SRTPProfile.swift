/// The SRTP protection profiles the sender offers (RFC 4568 crypto-suite
/// names, RFC 5764 / RFC 7714 DTLS-SRTP profiles).
public enum SRTPProfile: String, CaseIterable, Sendable {
    /// AES-128 counter mode with an 80-bit HMAC-SHA1 tag (RFC 3711).
    case aes128CmHmacSha1_80 = "AES_CM_128_HMAC_SHA1_80"
    /// AES-128 GCM with a 16-byte tag (RFC 7714).
    case aeadAes128Gcm = "AEAD_AES_128_GCM"

    /// Master key plus master salt, the bytes an `inline:` key carries.
    public var keyLength: Int {
        switch self {
        case .aes128CmHmacSha1_80: 30
        case .aeadAes128Gcm: 28
        }
    }

    /// Bytes `protectRTP` adds: the authentication tag.
    public var rtpTrailerLength: Int {
        switch self {
        case .aes128CmHmacSha1_80: 10
        case .aeadAes128Gcm: 16
        }
    }

    /// Bytes `protectRTCP` adds: the tag plus the 4-byte E flag and SRTCP index (RFC 3711 §3.4).
    public var rtcpTrailerLength: Int { rtpTrailerLength + 4 }

    /// The name for SDP `a=crypto` lines.
    public var sdpName: String { rawValue }

    /// The name GStreamer's `srtpenc`/`srtpdec` caps use (`srtp-cipher`/`srtp-auth`).
    public var gstreamerCipher: String {
        switch self {
        case .aes128CmHmacSha1_80: "aes-128-icm"
        case .aeadAes128Gcm: "aes-128-gcm"
        }
    }

    public var gstreamerAuth: String {
        switch self {
        case .aes128CmHmacSha1_80: "hmac-sha1-80"
        case .aeadAes128Gcm: "null"
        }
    }
}
