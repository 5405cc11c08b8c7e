import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts a daemon quietly and waits until its socket takes connections, so
/// a test talks to it only once it listens (the socket file appears at bind,
/// a moment before the daemon listens). Returns false if it did not in time.
func startDaemon(_ process: Process, socket path: String, within limit: TimeInterval) throws -> Bool {
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(limit)
    while !acceptsConnections(path) {
        guard Date() < deadline, process.isRunning else { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return true
}

private func acceptsConnections(_ path: String) -> Bool {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, b) in bytes.enumerated() { raw[i] = b }
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
        }
    }
}
