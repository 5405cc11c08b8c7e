import Foundation
import ControlProtocol

/// Where control lines come from and replies go: standard input and output,
/// or one client of a Unix socket. Reading and writing are on file
/// descriptors; a write to a client that has gone is dropped, not fatal.
public final class ControlChannel: @unchecked Sendable {
    // Safety: `readLine` is called from one thread only (it owns `pending` and
    // `chunk`); writes are serialised by `writeLock`.
    private let inputDescriptor: Int32
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    private let outputDescriptor: Int32
    private let writeLock = NSLock()
    private var pending = Data()
    private var closedForWriting = false

    public init(input: Int32, output: Int32) {
        inputDescriptor = input
        outputDescriptor = output
    }

    public static var stdio: ControlChannel { ControlChannel(input: STDIN_FILENO, output: STDOUT_FILENO) }

    /// The next line without its newline, or nil once the client has closed
    /// its end. A line longer than `ControlDecoder.maxLineLength` comes back
    /// cut at that length (and is refused as too long by the decoder).
    public func readLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = pending[pending.startIndex..<newline]
                pending = Data(pending[pending.index(after: newline)...])
                return String(decoding: line, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            }
            if pending.count > ControlDecoder.maxLineLength {
                let line = pending.prefix(ControlDecoder.maxLineLength + 1)
                pending = Data()
                skipToNewline()
                return String(decoding: line, as: UTF8.self)
            }
            let data = readChunk()
            if data.isEmpty {
                guard !pending.isEmpty else { return nil }
                defer { pending = Data() }
                return String(decoding: pending, as: UTF8.self)
            }
            pending.append(data)
        }
    }

    private func skipToNewline() {
        while true {
            let data = readChunk()
            if data.isEmpty { return }
            if let newline = data.firstIndex(of: 0x0A) {
                pending = Data(data[data.index(after: newline)...])
                return
            }
        }
    }

    /// What one read(2) returns; empty at the end, or when the client's end
    /// failed (a reset connection ends the session like a close).
    private func readChunk() -> Data {
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(inputDescriptor, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            return n > 0 ? Data(chunk[0..<n]) : Data()
        }
    }

    /// Writes one line (a newline is added). Safe from any thread.
    public func write(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        writeLock.withLock {
            guard !closedForWriting else { return }
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeMutableBytes { Glibc.write(outputDescriptor, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    closedForWriting = true
                    return
                }
                offset += n
            }
        }
        bytes.removeAll()
    }
}
