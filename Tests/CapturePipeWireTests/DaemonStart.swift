import Foundation

/// Starts a daemon quietly and waits until it has made its socket, so a test
/// talks to it only once it listens. Returns false if it did not in time.
func startDaemon(_ process: Process, socket path: String, within limit: TimeInterval) throws -> Bool {
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(limit)
    while !FileManager.default.fileExists(atPath: path) {
        guard Date() < deadline, process.isRunning else { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return true
}
