import Foundation
import Media
import ControlProtocol

/// Where control lines come from and replies go: standard input and output,
/// or one client of a Unix socket. Reading is on the caller's thread. Lines
/// written are queued and go out on the channel's own writer thread, so a
/// writer never blocks, whatever lock it holds; a client that takes none of
/// them for `writeTimeout`, or lets `maxQueuedBytes` pile up, is taken to be
/// gone (docs/behaviour.md §8.1): `whenGone` is told once and later lines are dropped.
public final class ControlChannel: @unchecked Sendable {
    // Safety: `readLine` is called from one thread only (it owns `pending` and
    // `chunk`); `queued`, `gone`, `finishing` and `onGone` are guarded by `condition`.
    /// Long enough for a call client busy with something else; short enough that a hung one does not keep a share on.
    public static let defaultWriteTimeout: Duration = .seconds(10)
    /// A few thousand status lines: a client this far behind is not reading.
    static let maxQueuedBytes = 4 * 1024 * 1024
    /// What one write(2) carries: on a pipe that polls writable, this much never blocks (PIPE_BUF).
    static let writeChunk = 4096

    private let inputDescriptor: Int32
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    private let outputDescriptor: Int32
    private var pending = Data()
    private let writeTimeout: Duration
    private let condition = SystemClock().makeCondition()
    private var queued: [UInt8] = []
    private var gone = false
    private var finishing = false
    private var writerDone = false
    private var onGone: (@Sendable () -> Void)?

    public init(input: Int32, output: Int32, writeTimeout: Duration = ControlChannel.defaultWriteTimeout) {
        inputDescriptor = input
        outputDescriptor = output
        self.writeTimeout = writeTimeout
        let thread = Thread { [self] in writeLoop() }
        thread.name = "control-writer"
        thread.start()
    }

    public static var stdio: ControlChannel { ControlChannel(input: STDIN_FILENO, output: STDOUT_FILENO) }

    /// `action` runs once, on the writer thread, when the client is taken to be gone.
    public func whenGone(_ action: @escaping @Sendable () -> Void) {
        condition.withLock { onGone = action }
    }

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

    /// Queues one line (a newline is added) and returns at once. Safe from any thread.
    public func write(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var tell: (@Sendable () -> Void)?
        condition.withLock {
            guard !gone, !finishing else { return }
            guard queued.count + bytes.count <= Self.maxQueuedBytes else {
                tell = giveUp()
                return
            }
            queued.append(contentsOf: bytes)
            condition.broadcast()
        }
        tell?()
    }

    /// Sends what is queued (up to the write timeout) and stops the writer thread.
    public func finish() {
        condition.withLock {
            finishing = true
            condition.broadcast()
            while !writerDone { condition.wait() }
        }
    }

    /// Marks the client gone (lock held); returns what to tell, once.
    private func giveUp() -> (@Sendable () -> Void)? {
        guard !gone else { return nil }
        gone = true
        queued = []
        condition.broadcast()
        defer { onGone = nil }
        return onGone
    }

    private func writeLoop() {
        while true {
            let batch = condition.withLock { () -> [UInt8]? in
                while queued.isEmpty && !gone && !finishing { condition.wait() }
                guard !gone, !queued.isEmpty else { return nil }
                defer { queued.removeAll(keepingCapacity: true) }
                return queued
            }
            guard let batch else { break }
            if !send(batch) {
                let action = condition.withLock { giveUp() }
                action?()
                break
            }
        }
        condition.withLock {
            writerDone = true
            condition.broadcast()
        }
    }

    /// Writes `bytes` whole; false when the client is gone (an error, or no progress within the timeout).
    private func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        let timeout = Int32(clamping: writeTimeout.nanoseconds / 1_000_000)
        while offset < bytes.count {
            var poller = pollfd(fd: outputDescriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, timeout)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0, poller.revents & Int16(POLLOUT) != 0 else { return false }
            let count = min(Self.writeChunk, bytes.count - offset)
            let n = bytes.withUnsafeBytes { raw -> Int in
                let start = raw.baseAddress! + offset
                // A socket is written without waiting; a pipe that polled writable takes this much at once.
                let sent = Glibc.send(outputDescriptor, start, count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                return sent < 0 && errno == ENOTSOCK ? Glibc.write(outputDescriptor, start, count) : sent
            }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}
