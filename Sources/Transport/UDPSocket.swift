#if canImport(Glibc)
import Glibc
#endif
import Media
import Synchronization

/// A blocking UDP socket for RTP and RTCP.
///
/// One thread may send while another receives; `close()` may come from any
/// thread. The descriptor sits in an atomic so a closed socket fails with
/// `.closed` instead of touching a reused descriptor number.
public final class UDPSocket: Sendable {
    /// Room for a keyframe's worth of packets queued in the kernel.
    public static let bufferSize: Int32 = 2 * 1024 * 1024
    private static let closedDescriptor: Int32 = -1

    public let localAddress: SocketAddress
    private let descriptor: Atomic<Int32>

    /// Binds to `address`; port 0 picks an ephemeral port, read it from `localAddress`.
    public init(bindingTo address: SocketAddress) throws(SocketError) {
        let domain = address.family == .ipv4 ? AF_INET : AF_INET6
        let fd = try Syscall.retrying("socket") { socket(domain, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do throws(SocketError) {
            for option in [SO_RCVBUF, SO_SNDBUF] {
                var size = Self.bufferSize
                try Syscall.retrying("setsockopt") { setsockopt(fd, SOL_SOCKET, option, &size, socklen_t(MemoryLayout<Int32>.size)) }
            }
            try address.withSockAddr { (pointer, length) throws(SocketError) in
                _ = try Syscall.retrying("bind") { bind(fd, pointer, length) }
            }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            try withUnsafeMutablePointer(to: &storage) { (pointer) throws(SocketError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SocketError) in
                    _ = try Syscall.retrying("getsockname") { getsockname(fd, address, &length) }
                }
            }
            guard let local = SocketAddress(storage) else { throw .system(function: "getsockname", errno: EAFNOSUPPORT) }
            localAddress = local
        } catch {
            Glibc.close(fd)
            throw error
        }
        descriptor = Atomic(fd)
    }

    deinit {
        close()
    }

    /// Sends one datagram (`sendto`).
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: SocketAddress) throws(SocketError) {
        let fd = try openDescriptor()
        try destination.withSockAddr { (address, length) throws(SocketError) in
            _ = try Syscall.retrying("sendto") { sendto(fd, bytes.baseAddress, bytes.count, 0, address, length) }
        }
    }

    public func send(_ bytes: [UInt8], to destination: SocketAddress) throws(SocketError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SocketError) in try send(raw, to: destination) } }.get()
    }

    /// Waits up to `timeout` (nil: forever) for a datagram (`poll`, then
    /// `recvfrom`). Returns nil on timeout. A datagram longer than `buffer`
    /// is cut to fit. EINTR restarts the wait with the full timeout.
    public func receive(
        into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?
    ) throws(SocketError) -> (count: Int, from: SocketAddress)? {
        let fd = try openDescriptor()
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.map { Int32(clamping: max(0, ($0.nanoseconds + 999_999) / 1_000_000)) } ?? -1
        let ready = try Syscall.retrying("poll") { poll(&poller, 1, milliseconds) }
        guard ready > 0 else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = try withUnsafeMutablePointer(to: &storage) { (pointer) throws(SocketError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SocketError) in
                try Syscall.retrying("recvfrom") { recvfrom(fd, buffer.baseAddress, buffer.count, 0, address, &length) }
            }
        }
        guard let from = SocketAddress(storage) else { return nil }
        return (count, from)
    }

    public func receive(into buffer: inout [UInt8], timeout: Duration?) throws(SocketError) -> (count: Int, from: SocketAddress)? {
        try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try receive(into: raw, timeout: timeout) }
        }.get()
    }

    /// Closes the descriptor; later calls fail with `.closed`. Safe to call twice.
    public func close() {
        let fd = descriptor.exchange(Self.closedDescriptor, ordering: .acquiringAndReleasing)
        if fd != Self.closedDescriptor { Glibc.close(fd) }
    }

    private func openDescriptor() throws(SocketError) -> Int32 {
        let fd = descriptor.load(ordering: .acquiring)
        guard fd != Self.closedDescriptor else { throw .closed }
        return fd
    }
}
