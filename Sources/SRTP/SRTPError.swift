/// Why SRTP could not be set up, or a packet could not be protected or
/// unprotected. No case ever carries key bytes.
public enum SRTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The master key plus salt has the wrong number of bytes for the profile.
    case invalidKeyLength(profile: SRTPProfile, expected: Int, got: Int)
    /// The key text is not base64 (or has characters after the key).
    case invalidKeyEncoding
    /// The key file could not be read.
    case keyFileUnreadable(path: String, reason: String)
    /// The key file is another user's, or others may read it: it is refused unread.
    case keyFileNotPrivate(path: String, reason: String)
    /// The packet failed its authentication check: tampered, wrong key, or not SRTP.
    case authenticationFailed
    /// The packet was seen before or is too old for the replay window.
    case replayed
    /// The buffer has no room for the authentication tag.
    case bufferTooSmall(needed: Int, capacity: Int)
    /// Any other libsrtp failure, with its function and `srtp_err_status_t` code.
    case library(function: String, status: Int32)

    public var description: String {
        switch self {
        case let .invalidKeyLength(profile, expected, got):
            return "SRTP key for \(profile.sdpName) must be \(expected) bytes of key and salt, got \(got); check the key file or the call client's crypto line"
        case .invalidKeyEncoding:
            return "SRTP key is not valid base64; the key file must hold one line, as in an SDP inline: parameter"
        case let .keyFileUnreadable(path, reason):
            return "cannot read SRTP key file \(path): \(reason)"
        case let .keyFileNotPrivate(path, reason):
            return "refusing SRTP key file \(path): \(reason)"
        case .authenticationFailed:
            return "SRTP authentication failed: the packet was altered or the two ends use different keys"
        case .replayed:
            return "SRTP packet replayed or too old for the replay window; dropped"
        case let .bufferTooSmall(needed, capacity):
            return "SRTP needs a \(needed)-byte buffer to add its tag, got \(capacity); allocate packet length plus the profile's trailer length"
        case let .library(function, status):
            return "\(function) failed with libsrtp status \(status)"
        }
    }
}
