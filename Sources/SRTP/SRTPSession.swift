import CSRTP
import Synchronization

/// One direction of an SRTP/SRTCP session over libsrtp2.
///
/// A sender session matches any SSRC it protects (`ssrc_any_outbound`), a
/// receiver session any SSRC it unprotects (`ssrc_any_inbound`), so new
/// streams need no new keys. The libsrtp context holds per-stream replay and
/// rollover state, so calls are serialized by a lock; in practice one thread
/// uses a session at a time and the lock is never contended.
public final class SRTPSession: Sendable {
    public enum Direction: Sendable {
        case sender
        case receiver
    }

    /// The largest trailer any profile adds to an RTP or RTCP packet: give
    /// `protect` buffers this much room past the packet.
    public static let maximumTrailerLength = SRTPProfile.allCases.map(\.rtcpTrailerLength).max() ?? 0

    /// Retransmissions and reordering within this many packets are accepted.
    static let replayWindow = 1024

    public let profile: SRTPProfile
    public let direction: Direction
    private let context: Mutex<Handle>

    /// The libsrtp context pointer; it is only dereferenced under `context`'s lock.
    private struct Handle: @unchecked Sendable {
        let session: srtp_t
    }

    /// `masterKey` is the master key followed by the master salt.
    public init(profile: SRTPProfile, masterKey: [UInt8], direction: Direction) throws(SRTPError) {
        guard masterKey.count == profile.keyLength else {
            throw .invalidKeyLength(profile: profile, expected: profile.keyLength, got: masterKey.count)
        }
        try SRTPLibrary.ensureInitialized()
        var policy = srtp_policy_t()
        switch profile {
        case .aes128CmHmacSha1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtp_default(&policy.rtcp)
        case .aeadAes128Gcm:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = direction == .sender ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = UInt(Self.replayWindow)
        // NACK answers re-protect the same plain packet: same sequence number,
        // same payload, so repeating it leaks nothing.
        policy.allow_repeat_tx = direction == .sender ? 1 : 0
        var key = masterKey
        var session: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { buffer in
            policy.key = buffer.baseAddress
            return srtp_create(&session, &policy)
        }
        // libsrtp has derived its session keys; wipe this copy of the master key.
        for index in key.indices { key[index] = 0 }
        try SRTPLibrary.check(status, "srtp_create")
        guard let session else { throw .library(function: "srtp_create", status: Int32(srtp_err_status_alloc_fail.rawValue)) }
        self.profile = profile
        self.direction = direction
        self.context = Mutex(Handle(session: session))
    }

    public convenience init(key: SRTPKey, direction: Direction) throws(SRTPError) {
        try self.init(profile: key.profile, masterKey: key.bytes, direction: direction)
    }

    deinit {
        context.withLock { _ = srtp_dealloc($0.session) }
    }

    /// Encrypts and authenticates the RTP packet in `buffer[0..<length]` in
    /// place (`srtp_protect`); returns the new length. `buffer` must hold
    /// `length + profile.rtpTrailerLength` bytes.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, trailer: profile.rtpTrailerLength, "srtp_protect", srtp_protect)
    }

    /// Checks and decrypts the SRTP packet in place (`srtp_unprotect`); returns the plain length.
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, trailer: 0, "srtp_unprotect", srtp_unprotect)
    }

    /// As `protectRTP`, for an RTCP compound (`srtp_protect_rtcp`); needs
    /// `profile.rtcpTrailerLength` spare bytes.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, trailer: profile.rtcpTrailerLength, "srtp_protect_rtcp", srtp_protect_rtcp)
    }

    /// As `unprotectRTP`, for SRTCP (`srtp_unprotect_rtcp`).
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, trailer: 0, "srtp_unprotect_rtcp", srtp_unprotect_rtcp)
    }

    /// Forgets the stream of `ssrc`, its keys and its roll-over and replay state
    /// (`srtp_remove_stream`), so that a session that meets a new SSRC now and
    /// then (a receiver that restarts) holds only those still in use. A later
    /// packet of that SSRC starts a new stream.
    public func removeStream(ssrc: UInt32) {
        context.withLock { _ = srtp_remove_stream($0.session, ssrc.bigEndian) }
    }

    /// Whether the session holds a stream for `ssrc` (one it protected or unprotected, not removed since).
    public func hasStream(ssrc: UInt32) -> Bool {
        var rolloverCounter: UInt32 = 0
        // Unlike srtp_remove_stream, libsrtp's stream lookup by roll-over counter takes the SSRC in host order.
        return context.withLock { srtp_get_stream_roc($0.session, ssrc, &rolloverCounter) } == srtp_err_status_ok
    }

    private func transform(
        _ buffer: UnsafeMutableRawBufferPointer, length: Int, trailer: Int, _ function: String,
        _ call: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t
    ) throws(SRTPError) -> Int {
        guard length >= 0, buffer.count >= length + trailer else {
            throw .bufferTooSmall(needed: length + trailer, capacity: buffer.count)
        }
        var newLength = Int32(length)
        let status = context.withLock { call($0.session, buffer.baseAddress, &newLength) }
        try SRTPLibrary.check(status, function)
        return Int(newLength)
    }
}
