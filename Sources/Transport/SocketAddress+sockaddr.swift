#if canImport(Glibc)
import Glibc
#endif

/// Conversions to and from the kernel's address structures, kept internal
/// so C types stay out of the public API.
extension SocketAddress {
    /// Calls `body` with this address as a C `sockaddr`.
    func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SocketError) -> Result) throws(SocketError) -> Result {
        var storage = sockaddr_storage()
        let length: socklen_t
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { target in addressBytes.withUnsafeBytes { target.copyMemory(from: $0) } }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { target in addressBytes.withUnsafeBytes { target.copyMemory(from: $0) } }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        return try withUnsafePointer(to: &storage) { (pointer) throws(SocketError) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SocketError) -> Result in
                try body(address, length)
            }
        }
    }

    /// Reads a `sockaddr_storage` filled by the kernel; nil for other families.
    init?(_ storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            let bytes = withUnsafeBytes(of: address.sin_addr) { Array($0) }
            self.init(addressBytes: bytes, port: UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            self.init(addressBytes: bytes, port: UInt16(bigEndian: address.sin6_port))
        default:
            return nil
        }
    }
}
