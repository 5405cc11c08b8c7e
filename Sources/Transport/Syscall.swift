#if canImport(Glibc)
import Glibc
#endif

/// The one place socket calls go through: retries on EINTR and turns a
/// failure into a `SocketError` naming the call.
enum Syscall {
    @discardableResult
    static func retrying<T: BinaryInteger>(_ function: String, _ call: () -> T) throws(SocketError) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw .system(function: function, errno: code)
        }
    }
}
