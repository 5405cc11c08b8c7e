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
    /// `SO_TIMESTAMPNS` (and `SCM_TIMESTAMPNS`) as a 64-bit kernel numbers it: glibc picks it
    /// with a macro that depends on the size of `time_t`, which Swift cannot import.
    private static let timestampOption: Int32 = 35

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
            // The kernel stamps each datagram as it comes in, so a reader busy with the one before
            // still knows when this one arrived (`Datagram.waited`).
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, Self.timestampOption, &on, socklen_t(MemoryLayout<Int32>.size))
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

    /// A datagram read: its length, its sender, and how long it waited in the socket's queue
    /// after the kernel took it in (zero where the kernel did not say).
    public struct Datagram: Equatable, Sendable {
        public var count: Int
        public var from: SocketAddress
        public var waited: Duration
    }

    /// Waits up to `timeout` (nil: forever) for a datagram (`poll`, then
    /// `recvmsg`). Returns nil on timeout. A datagram longer than `buffer`
    /// is cut to fit. EINTR restarts the wait with the full timeout.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(SocketError) -> Datagram? {
        let fd = try openDescriptor()
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.map { Int32(clamping: max(0, ($0.nanoseconds + 999_999) / 1_000_000)) } ?? -1
        let ready = try Syscall.retrying("poll") { poll(&poller, 1, milliseconds) }
        guard ready > 0 else { return nil }
        var storage = sockaddr_storage()
        var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        // A control message header and one timespec, with room to spare; on the stack, since
        // every packet a receiver gets comes through here.
        return try withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { (control) throws(SocketError) -> Datagram? in
            let (count, controlLength) = try withUnsafeMutablePointer(to: &storage) { (address) throws(SocketError) in
                try withUnsafeMutablePointer(to: &vector) { (vector) throws(SocketError) in
                    var message = msghdr(
                        msg_name: UnsafeMutableRawPointer(address), msg_namelen: socklen_t(MemoryLayout<sockaddr_storage>.size),
                        msg_iov: vector, msg_iovlen: 1, msg_control: control.baseAddress, msg_controllen: control.count,
                        msg_flags: 0)
                    let count = try Syscall.retrying("recvmsg") { recvmsg(fd, &message, 0) }
                    return (count, min(Int(message.msg_controllen), control.count))
                }
            }
            guard let from = SocketAddress(storage) else { return nil }
            let stamp = Self.kernelStamp(in: UnsafeRawBufferPointer(rebasing: control[0..<controlLength]))
            return Datagram(count: count, from: from, waited: stamp.map(Self.since) ?? .zero)
        }
    }

    public func receive(into buffer: inout [UInt8], timeout: Duration?) throws(SocketError) -> Datagram? {
        try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SocketError) in try receive(into: raw, timeout: timeout) }
        }.get()
    }

    /// The receive time in a datagram's control messages, if the kernel put one there.
    private static func kernelStamp(in control: UnsafeRawBufferPointer) -> timespec? {
        let headerSize = MemoryLayout<cmsghdr>.size
        var offset = 0
        while offset + headerSize <= control.count {
            let header = control.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
            let length = Int(header.cmsg_len)
            guard length >= headerSize, offset + length <= control.count else { return nil }
            if header.cmsg_level == SOL_SOCKET, header.cmsg_type == timestampOption,
               length >= headerSize + MemoryLayout<timespec>.size {
                return control.loadUnaligned(fromByteOffset: offset + headerSize, as: timespec.self)
            }
            offset += (length + 7) & ~7
        }
        return nil
    }

    /// How long ago, on the wall clock the kernel stamps with, `stamp` was. Under zero or over a
    /// second is the wall clock being set, not a wait: zero.
    private static func since(_ stamp: timespec) -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let waited = Duration.seconds(now.tv_sec - stamp.tv_sec) + .nanoseconds(now.tv_nsec - stamp.tv_nsec)
        return waited >= .zero && waited <= .seconds(1) ? waited : .zero
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
