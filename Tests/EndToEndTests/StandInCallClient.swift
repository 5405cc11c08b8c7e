import Foundation

/// Plays the call client between a sender and a receiver: passes the
/// receiver's media reports to the sender's control input and the sender's
/// new-transceiver announcements back to the receiver, as a call's
/// signalling would; and notes when each line was first seen.
final class StandInCallClient: @unchecked Sendable {
    // Safety: `seen` and `running` are guarded by `lock`.
    private let sender: ManagedProcess
    private let receiver: () -> ManagedProcess
    private let lock = NSLock()
    private var running = true
    private var seen: [(at: Date, from: String, line: String)] = []
    let started = Date()

    init(sender: ManagedProcess, receiver: @escaping () -> ManagedProcess) {
        self.sender = sender
        self.receiver = receiver
        Thread.detachNewThread { [self] in relay() }
    }

    private func relay() {
        var senderDone = 0
        var receiverDone = 0
        var current = receiver()
        while lock.withLock({ running }) {
            let now = Date()
            if receiver() !== current {
                current = receiver()
                receiverDone = 0
            }
            let fromReceiver = current.lines
            for line in fromReceiver.dropFirst(receiverDone) {
                lock.withLock { seen.append((now, "receiver", line)) }
                if line.contains("\"event\":\"report\"") { sender.send(line) }
            }
            receiverDone = fromReceiver.count
            let fromSender = sender.lines
            for line in fromSender.dropFirst(senderDone) {
                lock.withLock { seen.append((now, "sender", line)) }
                if line.contains("\"event\":\"transceiver\"") { current.send(line) }
            }
            senderDone = fromSender.count
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Every line from `from` containing every piece, with the seconds from the client's start when it was seen.
    func lines(from: String, containing pieces: String...) -> [(at: Double, line: String)] {
        lock.withLock {
            seen.filter { $0.from == from && pieces.allSatisfy($0.line.contains) }.map { ($0.at.timeIntervalSince(started), $0.line) }
        }
    }

    /// Seconds from the client's start to the first line from `from` containing every piece.
    func firstTime(from: String, containing pieces: String...) -> Double? {
        lock.withLock {
            seen.first { $0.from == from && pieces.allSatisfy($0.line.contains) }.map { $0.at.timeIntervalSince(started) }
        }
    }

    /// Waits for the first line from `from` containing every piece, seen after `after` seconds.
    func waitFor(timeout: TimeInterval, from: String, after: Double = 0, containing pieces: String...) -> Double? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let t = lock.withLock({
                seen.first { $0.from == from && $0.at.timeIntervalSince(started) > after && pieces.allSatisfy($0.line.contains) }
            }) {
                return t.at.timeIntervalSince(started)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    func stop() {
        lock.withLock { running = false }
    }
}
