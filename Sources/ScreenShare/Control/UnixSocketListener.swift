import Foundation
import Synchronization

/// `--control unix:PATH`: a socket only its owner can use (mode 0600). It
/// refuses to start when PATH exists and is anything but a stale socket of
/// this user's (one nobody answers on), which it replaces.
public final class UnixSocketListener: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public let path: String
    private let descriptor: Int32
    private let refusing = Mutex<(closed: Bool, done: DispatchSemaphore?)>((false, nil))

    public init(path: String) throws(Failure) {
        self.path = path
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw Failure(description: "\(path): too long for a Unix socket path")
        }
        try UnixSocketListener.clearStale(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(UnixSocketListener.errnoText())") }
        let previous = umask(0o177)
        let bound = UnixSocketListener.withAddress(path) { bind(fd, $0, $1) }
        umask(previous)
        guard bound == 0 else {
            let why = UnixSocketListener.errnoText()
            Glibc.close(fd)
            throw Failure(description: "cannot bind \(path): \(why)")
        }
        chmod(path, 0o600)
        guard listen(fd, 1) == 0 else {
            let why = UnixSocketListener.errnoText()
            Glibc.close(fd)
            unlink(path)
            throw Failure(description: "cannot listen on \(path): \(why)")
        }
        descriptor = fd
    }

    /// Waits for the call client; returns its connection's descriptor.
    public func accept() throws(Failure) -> Int32 {
        while true {
            let client = Glibc.accept(descriptor, nil, nil)
            if client >= 0 { return client }
            if errno == EINTR { continue }
            throw Failure(description: "accept on \(path): \(UnixSocketListener.errnoText())")
        }
    }

    /// From now on every other client that connects gets `line` and is closed at once: one call
    /// client at a time, and the others are told so rather than left waiting.
    public func refuseOthers(with line: String) {
        let done = DispatchSemaphore(value: 0)
        refusing.withLock { $0.done = done }
        let bytes = Array((line + "\n").utf8)
        let thread = Thread { [self] in
            defer { done.signal() }
            while !refusing.withLock({ $0.closed }) {
                let other = Glibc.accept(descriptor, nil, nil)
                guard other >= 0 else {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                // The line fits any socket buffer: written without waiting, or not at all.
                _ = bytes.withUnsafeBytes { Glibc.send(other, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                Glibc.close(other)
            }
        }
        thread.name = "control-refuser"
        thread.start()
    }

    /// Closes the socket and removes its path; a second call does nothing.
    public func close() {
        let (wasClosed, done) = refusing.withLock { state -> (Bool, DispatchSemaphore?) in
            defer { state.closed = true }
            return (state.closed, state.done)
        }
        guard !wasClosed else { return }
        if let done {
            // Wakes the refusing thread from accept, which a close alone does not.
            shutdown(descriptor, Int32(SHUT_RDWR))
            done.wait()
        }
        Glibc.close(descriptor)
        unlink(path)
    }

    static func clearStale(_ path: String) throws(Failure) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw Failure(description: "\(path): \(errnoText())")
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw Failure(description: "\(path) exists and is not a socket; refusing to replace it")
        }
        guard info.st_uid == getuid() else {
            throw Failure(description: "\(path) is a socket of another user's; refusing to replace it")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw Failure(description: "socket: \(errnoText())") }
        defer { Glibc.close(probe) }
        if withAddress(path, { connect(probe, $0, $1) }) == 0 {
            throw Failure(description: "\(path) is in use: another screenshare serve answers on it")
        }
        guard errno == ECONNREFUSED else {
            throw Failure(description: "\(path) exists and cannot be probed (\(errnoText())); refusing to replace it")
        }
        guard unlink(path) == 0 else { throw Failure(description: "cannot remove the stale socket \(path): \(errnoText())") }
    }

    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            raw.copyBytes(from: path.utf8)
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
