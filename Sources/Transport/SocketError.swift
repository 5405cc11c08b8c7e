#if canImport(Glibc)
import Glibc
#endif

/// Why a socket call failed, or an address could not be read.
public enum SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A system call failed; `errno` is the C error number.
    case system(function: String, errno: Int32)
    /// The text is not `a.b.c.d:port`, `[v6]:port` or `localhost:port`.
    case invalidAddress(String)
    /// The socket was used after `close()`.
    case closed

    public var description: String {
        switch self {
        case let .system(function, errno):
            return "\(function) failed: \(String(cString: strerror(errno))) (errno \(errno))"
        case let .invalidAddress(text):
            return "\"\(text)\" is not an address: write 192.0.2.1:5004, [2001:db8::1]:5004 or localhost:5004"
        case .closed:
            return "the socket is closed"
        }
    }
}
