import Congestion
import Foundation
import Media
import RTP
import SRTP
import Transport

/// The far end of a `SimulatedShare` call: a real socket that takes every
/// datagram the sender sends, keeps a copy, puts it through a
/// `Congestion.SimulatedLink` (a `tc tbf`-like bottleneck) at the moment its
/// abs-send-time says it left, and answers as the chosen receiver would —
/// transport-wide feedback every 50–100 ms and NACKs, or NACKs alone (for
/// all it loses, or for a third), or nothing — with the RTP module's builders, protected as SRTCP when the
/// share is, reaching the sender one return delay after the receiver sent it. Unless it answers
/// nothing, it also reports once when the first packet arrives, as rtpbin and screen-receiver do
/// within a quarter of a second: the sender then knows it is heard.
///
/// It stands in for a receiver behind a bottleneck on the manual clock,
/// which no real receiver and no real `tc` can run on. The sender's
/// datagrams are real UDP on loopback: the send time is read from each
/// packet, because the manual clock may move on while one crosses the kernel.
/// Its feedback is handed to the sender's connection on the peer's own
/// thread, which the clock waits for: through a socket, the clock could move
/// on before the sender read it, and a run would depend on the machine's load.
final class SimulatedPeer: @unchecked Sendable {
    // Safety: every mutable field is guarded by `condition`; the socket and
    // sessions are used by the thread named beside them.
    enum Feedback: Sendable {
        case transportWide
        case nacksOnly
        /// NACKs alone, for one lost packet in three: what rtpbin asks for
        /// from behind a full tbf queue, where it gives up on the rest as too late.
        case nacksForAThird
        /// NACKs by the clock, as rtpbin busy on loopback sends them: at the
        /// end of each frame, the two numbers it expects next (not sent yet)
        /// and one it has had; nothing is lost.
        case nacksAhead
        /// NACKs by the clock, as rtpbin idle on loopback sends them: at the
        /// end of each frame, the last two numbers it has had, moments after
        /// they left; nothing is lost.
        case nacksJustHad
        /// Transport-wide feedback, and NACKs as rtpbin with transport-cc sends them behind a
        /// growing queue: at the end of each frame, a number it had a while before; nothing is lost.
        case transportWideNackingWhatItHad
        /// NACKs by the clock, as rtpbin without transport-cc sends them from behind a tbf whose
        /// queue fills: each packet held there 50 ms longer than the least any packet was is
        /// asked for 10 ms before it arrives, and each lost one with the next to arrive.
        case nacksByTheClock
        case none
    }

    /// One datagram the sender sent, as it left.
    struct Packet: Sendable {
        var ssrc: UInt32
        var sequenceNumber: UInt16
        var transportSequenceNumber: UInt16?
        var padding: Bool
        var bytes: [UInt8]
        var sendTime: Instant
        /// When it reached the receiver; nil when the link dropped or lost it.
        var arrival: Instant?
    }

    static let transportWideID: UInt8 = TransportSequenceNumber.defaultExtensionID
    /// IPv4 and UDP headers: a bottleneck carries them too.
    static let datagramOverhead = 28

    let address: SocketAddress
    private let clock: ManualClock
    private let socket: UDPSocket
    private let condition: ClockCondition
    private let feedback: Feedback
    private let protector: SRTPSession?   // feedback thread
    private let transportSequence = TransportSequenceNumber(extensionID: SimulatedPeer.transportWideID)!
    private var link: SimulatedLink
    /// Hands one datagram of feedback to the sender, as its feedback thread would.
    private var sender: (@Sendable (inout [UInt8], Int) -> Void)?
    private var stopping = false
    private var received: [Packet] = []
    private var reported = false
    /// Transport-wide numbers not yet reported, with their arrivals.
    private var unreported: [(sequenceNumber: UInt16, arrival: Instant?)] = []
    /// RTCP on its way back: when it reaches the sender, and its plain bytes.
    private var outgoing: [(at: Instant, packet: RTCPPacket)] = []
    private var highest: [UInt32: Int64] = [:]
    private var lostSoFar = 0
    /// For `nacksByTheClock`: the least time a packet took to arrive.
    private var leastDelay: Duration?
    private var lostByTheClock: [UInt16] = []
    private var unwrappers: [UInt32: SequenceUnwrapper] = [:]
    private var nextFeedback: Instant
    private var random = SeededRandom(seed: 11)
    private var builder = TransportFeedbackBuilder(senderSSRC: 0x5EED, mediaSSRC: 0)
    private let threads = DispatchGroup()

    init(clock: ManualClock, link: SimulatedLink, feedback: Feedback, key: SRTPKey?) throws {
        self.clock = clock
        self.link = link
        self.feedback = feedback
        socket = try UDPSocket(bindingTo: SocketAddress(host: "127.0.0.1", port: 0))
        address = socket.localAddress
        protector = try key.map { try SRTPSession(key: $0, direction: .sender) }
        condition = clock.makeCondition()
        nextFeedback = clock.now + .milliseconds(50)
    }

    /// Starts answering the sender, through `sender`.
    func start(sender: @escaping @Sendable (inout [UInt8], Int) -> Void) {
        condition.withLock { self.sender = sender }
        spawn("peer-receive") { [self] in receiveLoop() }
        spawn("peer-feedback") { [self] in feedbackLoop() }
    }

    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
        threads.wait()
        socket.close()
    }

    /// Every datagram of RTP the sender sent so far, in the order sent.
    var packets: [Packet] { condition.withLock { received } }

    /// A PLI for `ssrc`, sent by the receiver now.
    func sendPLI(ssrc: UInt32) {
        sendNow(.pictureLossIndication(PictureLossIndication(senderSSRC: 0x5EED, mediaSSRC: ssrc)))
    }

    /// A NACK for `sequenceNumbers` of `ssrc`, sent by the receiver now.
    func sendNACK(ssrc: UInt32, sequenceNumbers: [UInt16]) {
        sendNow(.genericNACK(GenericNACK(senderSSRC: 0x5EED, mediaSSRC: ssrc, lostSequenceNumbers: sequenceNumbers)))
    }

    private func sendNow(_ packet: RTCPPacket) {
        condition.withLock {
            outgoing.append((clock.now + link.propagationDelay, packet))
            condition.signal()
        }
    }

    var droppedAtQueue: Int { condition.withLock { link.droppedAtQueue } }
    var lostAtRandom: Int { condition.withLock { link.lostAtRandom } }

    private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            body()
            threads.leave()
        }
        thread.name = name
        thread.start()
    }

    // MARK: Receive thread (real time: it only reads the socket)

    private func receiveLoop() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while !condition.withLock({ stopping }) {
            guard let count = try? socket.receive(into: &buffer, timeout: .milliseconds(20))?.count else { continue }
            let bytes = Array(buffer[0..<count])
            guard bytes.withUnsafeBytes({ MuxedPacketKind.classify($0) }) == .rtp else { continue }
            condition.withLock {
                take(bytes)
                condition.signal()
            }
        }
    }

    /// Puts one RTP datagram through the link and notes what the receiver
    /// will say about it. Call with `condition` held.
    private func take(_ bytes: [UInt8]) {
        guard bytes.count >= RTPHeader.fixedSize, let sent = bytes.withUnsafeBytes({ AbsoluteSendTime.read($0) }) else { return }
        let now = clock.now
        // abs-send-time is 24 bits of 2^-18 s: it left this long before now.
        let behind = (AbsoluteSendTime.value(at: now) &- sent) & 0xFF_FFFF
        let sendTime = now - .nanoseconds((Int64(behind) * 1_000_000_000) >> 18)
        let arrival = link.send(size: bytes.count + Self.datagramOverhead, at: sendTime)
        let ssrc = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self).bigEndian }
        let sequence = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let transport = bytes.withUnsafeBytes { transportSequence.read($0) }
        received.append(Packet(ssrc: ssrc, sequenceNumber: sequence, transportSequenceNumber: transport,
                               padding: padding(bytes), bytes: bytes, sendTime: sendTime, arrival: arrival))
        if feedback != .none, !reported, let arrival {
            reported = true
            outgoing.append((arrival + link.propagationDelay,
                             .receiverReport(ReceiverReport(ssrc: 0x5EED, reports: [ReceptionReport(ssrc: ssrc)]))))
        }
        if let transport, feedback == .transportWide || feedback == .transportWideNackingWhatItHad {
            unreported.append((transport, arrival))
        }
        if feedback == .nacksByTheClock, !padding(bytes) {
            nackByTheClock(sequence, ssrc: ssrc, sent: sendTime, arrival: arrival)
            return
        }
        guard feedback != .none, let arrival else { return }
        if feedback == .nacksAhead || feedback == .nacksJustHad || feedback == .transportWideNackingWhatItHad {
            guard bytes[1] & 0x80 != 0 else { return }
            let asked = switch feedback {
            case .nacksAhead: [sequence &- 1, sequence &+ 1, sequence &+ 2]
            case .nacksJustHad: [sequence &- 2, sequence &- 1]
            default: [sequence &- 20]
            }
            outgoing.append((arrival + link.propagationDelay,
                             .genericNACK(GenericNACK(senderSSRC: 0x5EED, mediaSSRC: ssrc, lostSequenceNumbers: asked))))
            return
        }
        nackGap(before: sequence, ssrc: ssrc, arrival: arrival)
    }

    private func padding(_ bytes: [UInt8]) -> Bool { bytes[0] & 0x20 != 0 }

    /// Asks for a packet the queue holds `clockNackDelay` longer than the least, a little before
    /// it arrives, and for one lost as the next one arrives.
    private func nackByTheClock(_ sequence: UInt16, ssrc: UInt32, sent: Instant, arrival: Instant?) {
        guard let arrival else {
            lostByTheClock.append(sequence)
            return
        }
        let delay = arrival - sent
        let least = min(leastDelay ?? delay, delay)
        leastDelay = least
        var asked = lostByTheClock
        lostByTheClock = []
        if delay > least + Self.clockNackDelay { asked.append(sequence) }
        guard !asked.isEmpty else { return }
        outgoing.append((arrival - .milliseconds(10) + link.propagationDelay,
                         .genericNACK(GenericNACK(senderSSRC: 0x5EED, mediaSSRC: ssrc, lostSequenceNumbers: asked))))
    }

    static let clockNackDelay: Duration = .milliseconds(50)

    /// The link never reorders: numbers skipped before one that arrived
    /// were lost, and are asked for once, as the project's receiver does.
    private func nackGap(before sequence: UInt16, ssrc: UInt32, arrival: Instant) {
        let extended = unwrappers[ssrc, default: SequenceUnwrapper()].unwrap(sequence)
        defer { highest[ssrc] = max(highest[ssrc] ?? extended, extended) }
        guard let top = highest[ssrc], extended > top + 1 else { return }
        var lost = (top + 1..<extended).map { UInt16(truncatingIfNeeded: $0) }
        if feedback == .nacksForAThird {
            lost = lost.enumerated().filter { (lostSoFar + $0.offset) % 3 == 0 }.map(\.element)
            lostSoFar += Int(extended - top - 1)
            guard !lost.isEmpty else { return }
        }
        outgoing.append((arrival + link.propagationDelay,
                         .genericNACK(GenericNACK(senderSSRC: 0x5EED, mediaSSRC: ssrc, lostSequenceNumbers: lost))))
    }

    // MARK: Feedback thread (on the manual clock)

    private func feedbackLoop() {
        condition.lock()
        defer { condition.unlock() }
        while !stopping {
            let now = clock.now
            let transportWide = feedback == .transportWide || feedback == .transportWideNackingWhatItHad
            if transportWide, now >= nextFeedback {
                reportTransportWide(now: now)
                nextFeedback = now + .milliseconds(Int64.random(in: 50...100, using: &random))
            }
            let due = outgoing.filter { $0.at <= now }
            outgoing.removeAll { $0.at <= now }
            for item in due { deliver(item.packet) }
            var wake = outgoing.map(\.at).min() ?? now + .seconds(1)
            if transportWide { wake = min(wake, nextFeedback) }
            condition.wait(until: wake)
        }
    }

    /// Feedback for every packet whose fate is known by now: those arrived,
    /// and those lost before the last arrived. Call with `condition` held.
    private func reportTransportWide(now: Instant) {
        guard let last = unreported.lastIndex(where: { $0.arrival.map { $0 <= now } ?? false }) else { return }
        let arrivals = unreported[...last].map { TransportFeedbackBuilder.Arrival(sequenceNumber: $0.sequenceNumber, time: $0.arrival) }
        unreported.removeFirst(last + 1)
        for packet in builder.build(arrivals) { outgoing.append((now + link.propagationDelay, .transportFeedback(packet))) }
    }

    private func deliver(_ packet: RTCPPacket) {
        guard let sender else { return }
        var bytes: [UInt8] = []
        guard (try? packet.marshal(into: &bytes)) != nil else { return }
        var length = bytes.count
        if let protector {
            bytes += [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
            guard let protected = try? protector.protectRTCP(&bytes, length: length) else { return }
            length = protected
        }
        sender(&bytes, length)
    }
}
