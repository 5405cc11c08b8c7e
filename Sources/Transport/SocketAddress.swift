#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address and UDP port.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Family: Sendable {
        case ipv4
        case ipv6
    }

    /// Address bytes in network order: 4 for IPv4, 16 for IPv6.
    public let addressBytes: [UInt8]
    public let port: UInt16

    public var family: Family { addressBytes.count == 4 ? .ipv4 : .ipv6 }

    static let ipv4Size = 4
    static let ipv6Size = 16

    /// Reads `a.b.c.d:port`, `[v6]:port` or `localhost:port` (→ 127.0.0.1).
    /// Port 0 asks the kernel for an ephemeral port when binding.
    public init(parsing text: String) throws(SocketError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .invalidAddress(text)
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw .invalidAddress(text) }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText) else { throw .invalidAddress(text) }
        let hostName = host == "localhost" ? "127.0.0.1" : String(host)
        guard let address = Self.parseHost(hostName, bracketed: text.hasPrefix("[")) else { throw .invalidAddress(text) }
        self.init(addressBytes: address, port: port)
    }

    /// `host` is a numeric IPv4 or IPv6 address.
    public init(host: String, port: UInt16) throws(SocketError) {
        guard let address = Self.parseHost(host, bracketed: host.contains(":")) else { throw .invalidAddress(host) }
        self.init(addressBytes: address, port: port)
    }

    init(addressBytes: [UInt8], port: UInt16) {
        self.addressBytes = addressBytes
        self.port = port
    }

    public static func ipv4Loopback(port: UInt16) -> SocketAddress {
        SocketAddress(addressBytes: [127, 0, 0, 1], port: port)
    }

    public static func ipv6Loopback(port: UInt16) -> SocketAddress {
        SocketAddress(addressBytes: [UInt8](repeating: 0, count: 15) + [1], port: port)
    }

    /// 127.0.0.0/8, ::1, or an IPv4-mapped loopback: where unencrypted RTP may go.
    public var isLoopback: Bool {
        switch family {
        case .ipv4:
            return addressBytes[0] == 127
        case .ipv6:
            if addressBytes.prefix(12).elementsEqual(Self.ipv4MappedPrefix) { return addressBytes[12] == 127 }
            return addressBytes.dropLast().allSatisfy { $0 == 0 } && addressBytes[15] == 1
        }
    }

    /// The same host, whatever the port.
    public func isSameHost(as other: SocketAddress) -> Bool {
        addressBytes == other.addressBytes
    }

    /// Where a sender's socket binds to reach `destinations` (the first sets the family): their family's
    /// loopback when every one is on loopback, so that nothing off this host can reach the socket
    /// (docs/behaviour.md §7.3); otherwise every address of the family.
    public static func bindAddress(reaching destinations: [SocketAddress], port: UInt16 = 0) -> SocketAddress {
        let family = destinations.first?.family ?? .ipv4
        let mapped = destinations.first.map { $0.family == .ipv6 && $0.addressBytes[0..<12].elementsEqual(ipv4MappedPrefix) } ?? false
        switch (family, !destinations.isEmpty && destinations.allSatisfy(\.isLoopback)) {
        case (.ipv4, true): return ipv4Loopback(port: port)
        case (.ipv6, true): return mapped ? SocketAddress(addressBytes: ipv4MappedPrefix + [127, 0, 0, 1], port: port) : ipv6Loopback(port: port)
        case (.ipv4, false): return SocketAddress(addressBytes: [0, 0, 0, 0], port: port)
        case (.ipv6, false): return SocketAddress(addressBytes: [UInt8](repeating: 0, count: ipv6Size), port: port)
        }
    }

    /// `::ffff:0:0/96`, IPv4 addresses written as IPv6.
    static let ipv4MappedPrefix = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF]

    public var host: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        _ = addressBytes.withUnsafeBytes { inet_ntop(domain, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String {
        family == .ipv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }

    private static func parseHost(_ host: String, bracketed: Bool) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: bracketed ? ipv6Size : ipv4Size)
        let ok = bytes.withUnsafeMutableBytes { inet_pton(bracketed ? AF_INET6 : AF_INET, host, $0.baseAddress) }
        return ok == 1 ? bytes : nil
    }
}
