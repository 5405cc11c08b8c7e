#if canImport(Glibc)
import Glibc
#endif
import CPipeWire
import Capture

/// Ways into a PipeWire daemon, and the library's one-time setup.
public enum PipeWireRemote {
    /// `pw_init` must run once per process before anything else.
    private static let initialized: Bool = {
        pw_init(nil, nil)
        return true
    }()

    static func initializeLibrary() {
        _ = initialized
    }

    /// The daemon's socket for this user: `$PIPEWIRE_RUNTIME_DIR` or
    /// `$XDG_RUNTIME_DIR`, then `pipewire-0`.
    public static func defaultSocketPath() -> String? {
        for variable in ["PIPEWIRE_RUNTIME_DIR", "XDG_RUNTIME_DIR"] {
            if let dir = getenv(variable), dir.pointee != 0 {
                return String(cString: dir) + "/pipewire-0"
            }
        }
        return nil
    }

    /// Opens a connection to the daemon's unix socket and returns its file
    /// descriptor, which `pw_context_connect_fd` accepts as a remote (this is
    /// what the ScreenCast portal hands out). The caller owns the descriptor.
    public static func connectSocket(path: String) throws(CaptureError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw CaptureError(.temporary, "Could not make a socket for PipeWire: \(String(cString: strerror(errno)))")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            close(fd)
            throw CaptureError(.permanent, "The PipeWire socket path \(path) is too long for a unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw CaptureError(.temporary, "Could not reach PipeWire at \(path): \(reason). Is the pipewire service running?")
        }
        return fd
    }
}
