#if canImport(Glibc)
import Glibc
#endif

/// A master key and salt for one profile. Its descriptions never show the
/// key: printing or logging one gives `SRTPKey(AES_CM_128_HMAC_SHA1_80, redacted)`.
public struct SRTPKey: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let profile: SRTPProfile
    /// Master key followed by master salt.
    public let bytes: [UInt8]

    static let inlinePrefix = "inline:"
    /// Key files are one short line; anything larger is not a key file.
    static let maxFileSize = 4096

    public init(profile: SRTPProfile, bytes: [UInt8]) throws(SRTPError) {
        guard bytes.count == profile.keyLength else {
            throw .invalidKeyLength(profile: profile, expected: profile.keyLength, got: bytes.count)
        }
        self.profile = profile
        self.bytes = bytes
    }

    /// Reads base64 as in SDES (RFC 4568 §6.1): an optional `inline:` prefix
    /// and optional `|lifetime|MKI` parameters, which are ignored.
    public init(base64 text: String, profile: SRTPProfile) throws(SRTPError) {
        var trimmed = Substring(text).drop { $0.isWhitespace }
        while trimmed.last?.isWhitespace == true { trimmed = trimmed.dropLast() }
        if trimmed.hasPrefix(Self.inlinePrefix) { trimmed = trimmed.dropFirst(Self.inlinePrefix.count) }
        let keyPart = trimmed.prefix { $0 != "|" }
        guard let decoded = Base64.decode(keyPart) else { throw .invalidKeyEncoding }
        try self.init(profile: profile, bytes: decoded)
    }

    /// Reads a key file holding one line of base64. The file must be this
    /// user's and readable by nobody else (no group or other permission bits),
    /// as ssh asks of a private key: whoever else can read it can decrypt the
    /// share. A symlink is followed, and the file it reaches is held to the
    /// same rule, checked on the open descriptor so it cannot be swapped in between.
    public init(contentsOfFile path: String, profile: SRTPProfile) throws(SRTPError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else { throw .keyFileUnreadable(path: path, reason: Self.errnoText()) }
        defer { close(descriptor) }
        try Self.checkPrivate(descriptor, path: path)
        var buffer = [UInt8](repeating: 0, count: Self.maxFileSize + 1)
        var filled = 0
        while filled < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .keyFileUnreadable(path: path, reason: Self.errnoText()) }
            if count == 0 { break }
            filled += count
        }
        guard filled <= Self.maxFileSize else {
            throw .keyFileUnreadable(path: path, reason: "larger than \(Self.maxFileSize) bytes, not a key file")
        }
        let text = String(decoding: buffer[0..<filled], as: UTF8.self)
        for index in buffer.indices { buffer[index] = 0 }
        try self.init(base64: text, profile: profile)
    }

    /// A regular file owned by this user with no permission for group or others.
    private static func checkPrivate(_ descriptor: Int32, path: String) throws(SRTPError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .keyFileUnreadable(path: path, reason: errnoText()) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .keyFileUnreadable(path: path, reason: "not a regular file")
        }
        guard info.st_uid == geteuid() else {
            throw .keyFileNotPrivate(path: path, reason: "it belongs to user \(info.st_uid), not to this user (\(geteuid()))")
        }
        let exposed = info.st_mode & 0o077
        guard exposed == 0 else {
            let who = exposed & 0o070 != 0 ? "its group" : "other users"
            throw .keyFileNotPrivate(path: path, reason: "its mode \(String(info.st_mode & 0o777, radix: 8)) gives \(who) access; "
                                     + "make it readable by you alone (chmod 600 \(path))")
        }
    }

    /// For SDP: `a=crypto:1 <profile.sdpName> inline:<base64>`.
    public var base64: String { Base64.encode(bytes) }

    /// For GStreamer caps: `srtp-key=(buffer)<hex>`.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { "SRTPKey(\(profile.sdpName), redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["profile": profile]) }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
