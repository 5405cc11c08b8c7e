import Foundation

/// Plays the call client between a sender and its receivers: passes each
/// receiver's media reports to the sender's control input and the sender's
/// new-transceiver announcements back to the receiver they are for, as a
/// call's signalling would; and notes when each line was first seen.
///
/// With `share` there is one receiver, and its lines pass as they are. With
/// `serve`, each report becomes a `report` command naming the receiver by its
/// label, and a `transceiver` event goes to the receiver it names.
final class StandInCallClient: @unchecked Sendable {
    enum Sender { case share, serve }

    // Safety: `seen` and `running` are guarded by `lock`.
    private let sender: ManagedProcess
    private let kind: Sender
    private let receivers: [(label: String, process: () -> ManagedProcess)]
    private let lock = NSLock()
    private var running = true
    private var seen: [(at: Date, from: String, line: String)] = []
    let started = Date()

    /// `receiver` is asked again on every pass, so a test can replace the process.
    convenience init(sender: ManagedProcess, receiver: @escaping () -> ManagedProcess) {
        self.init(sender: sender, kind: .share, receivers: [("receiver", receiver)])
    }

    init(sender: ManagedProcess, kind: Sender, receivers: [(label: String, process: () -> ManagedProcess)]) {
        self.sender = sender
        self.kind = kind
        self.receivers = receivers
        Thread.detachNewThread { [self] in relay() }
    }

    private func relay() {
        var senderDone = 0
        var current = receivers.map { $0.process() }
        var receiverDone = receivers.map { _ in 0 }
        while lock.withLock({ running }) {
            let now = Date()
            for (i, receiver) in receivers.enumerated() {
                if receiver.process() !== current[i] {
                    current[i] = receiver.process()
                    receiverDone[i] = 0
                }
                let fromReceiver = current[i].lines
                for line in fromReceiver.dropFirst(receiverDone[i]) {
                    lock.withLock { seen.append((now, receiver.label, line)) }
                    if line.contains("\"event\":\"report\""), let command = report(line, from: receiver.label) { sender.send(command) }
                }
                receiverDone[i] = fromReceiver.count
            }
            let fromSender = sender.lines
            for line in fromSender.dropFirst(senderDone) {
                lock.withLock { seen.append((now, "sender", line)) }
                guard line.contains("\"event\":\"transceiver\"") else { continue }
                for (i, receiver) in receivers.enumerated() where kind == .share || line.contains("\"receiver\":\"\(receiver.label)\"") {
                    current[i].send(line)
                }
            }
            senderDone = fromSender.count
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// What the sender is told of a receiver's report line.
    private func report(_ line: String, from label: String) -> String? {
        guard kind == .serve else { return line }
        guard var figures = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return nil }
        let stalled = figures["screenStalled"] as? Bool ?? false
        for key in ["event", "screenStalled", "reason"] { figures[key] = nil }
        let command: [String: Any] = ["cmd": "report", "receiver": label, "screenStalled": stalled, "figures": figures]
        return (try? JSONSerialization.data(withJSONObject: command)).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// Every line from `from` containing every piece, with the seconds from the client's start when it was seen.
    func lines(from: String, containing pieces: String...) -> [(at: Double, line: String)] {
        lock.withLock {
            seen.filter { $0.from == from && pieces.allSatisfy($0.line.contains) }.map { ($0.at.timeIntervalSince(started), $0.line) }
        }
    }

    /// `lines(from:containing:)` read as JSON objects; a line that is not one is left out.
    func objects(from: String, containing pieces: String...) -> [(at: Double, object: [String: Any])] {
        lock.withLock {
            seen.filter { $0.from == from && pieces.allSatisfy($0.line.contains) }.compactMap { seen in
                ((try? JSONSerialization.jsonObject(with: Data(seen.line.utf8))) as? [String: Any]).map { (seen.at.timeIntervalSince(started), $0) }
            }
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
