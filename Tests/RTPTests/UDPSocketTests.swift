import Testing
@testable import RTP
import Media
import Transport

struct UDPSocketTests {
    @Test func address_parsesV4V6AndLocalhost() throws {
        let v4 = try SocketAddress(parsing: "192.0.2.7:5004")
        #expect(v4.family == .ipv4)
        #expect(v4.port == 5004)
        #expect(v4.description == "192.0.2.7:5004")
        #expect(!v4.isLoopback)
        let v6 = try SocketAddress(parsing: "[2001:db8::1]:6000")
        #expect(v6.family == .ipv6)
        #expect(v6.description == "[2001:db8::1]:6000")
        #expect(try SocketAddress(parsing: "localhost:0").isLoopback)
        #expect(try SocketAddress(parsing: "[::1]:1").isLoopback)
        #expect(try SocketAddress(parsing: "[::ffff:127.0.0.1]:1").isLoopback)
        #expect(try SocketAddress(parsing: "127.8.9.10:1").isLoopback)
        #expect(try SocketAddress(host: "::1", port: 9) == .ipv6Loopback(port: 9))
    }

    @Test(arguments: ["192.0.2.7", "192.0.2.7:70000", "[::1:5004", "::1:5004", "example.com:80", "1.2.3:4"])
    func address_rejectsMalformed(text: String) {
        #expect(throws: SocketError.invalidAddress(text)) { try SocketAddress(parsing: text) }
    }

    @Test(arguments: ["127.0.0.1:0", "[::1]:0"])
    func loopback_sendAndReceive(bind: String) throws {
        let receiver = try UDPSocket(bindingTo: try SocketAddress(parsing: bind))
        let sender = try UDPSocket(bindingTo: try SocketAddress(parsing: bind))
        #expect(receiver.localAddress.port != 0)
        try sender.send([1, 2, 3, 4], to: receiver.localAddress)
        var buffer = [UInt8](repeating: 0, count: 1500)
        let result = try receiver.receive(into: &buffer, timeout: .seconds(2))
        #expect(result?.count == 4)
        #expect(result?.from == sender.localAddress)
        #expect(Array(buffer[0..<4]) == [1, 2, 3, 4])
    }

    @Test func aDatagram_saysHowLongItWaitedInTheQueue() throws {
        let receiver = try UDPSocket(bindingTo: .ipv4Loopback(port: 0))
        let sender = try UDPSocket(bindingTo: .ipv4Loopback(port: 0))
        let clock = SystemClock()
        let sent = clock.now
        try sender.send([7], to: receiver.localAddress)
        var buffer = [UInt8](repeating: 0, count: 64)
        let datagram = try #require(try receiver.receive(into: &buffer, timeout: .seconds(2)))
        // The kernel stamped it on the way in (zero would mean no stamp), and it cannot have
        // waited longer than since it was sent.
        #expect(datagram.waited > .zero)
        #expect(datagram.waited <= clock.now - sent)
    }

    @Test func receive_timesOutWithNil() throws {
        let socket = try UDPSocket(bindingTo: .ipv4Loopback(port: 0))
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(try socket.receive(into: &buffer, timeout: .milliseconds(10)) == nil)
    }

    @Test func closedSocket_throwsClosed() throws {
        let socket = try UDPSocket(bindingTo: .ipv4Loopback(port: 0))
        socket.close()
        socket.close()
        #expect(throws: SocketError.closed) { try socket.send([0], to: .ipv4Loopback(port: 9)) }
    }

    @Test func bindFailure_namesTheCall() throws {
        let first = try UDPSocket(bindingTo: .ipv4Loopback(port: 0))
        do {
            _ = try UDPSocket(bindingTo: first.localAddress)
            Issue.record("second bind to the same port succeeded")
        } catch {
            guard case .system(let function, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(function == "bind")
            #expect(error.description.contains("Address already in use"))
        }
    }
}
