import Media
import RTP

/// The receiver's half of transport-wide congestion control: when each
/// packet that carries a transport-wide sequence number arrived, and which
/// never did, told back to the sender in RTPFB FMT 15 feedback every 50 ms
/// (docs/behaviour.md §6.2), so the sender can see the queue at the
/// bottleneck and the loss at it.
///
/// Each number is reported once, in order: one that arrives after a
/// feedback has called it lost stays lost, as libwebrtc's receiver does.
struct TransportWideReporter {
    /// Often enough that a queue filling shows within a few frames, seldom
    /// enough that the feedback is a few kbit/s.
    static let interval: Duration = .milliseconds(50)
    /// Without a packet carrying the extension for this long, the sender no
    /// longer sends it: REMB takes over again.
    static let inUseFor: Duration = .seconds(2)
    /// Bounds what a sender can make the reporter hold between two feedbacks.
    static let maxPending = 4096
    /// A jump wider than this is a new numbering (a restarted sender), not
    /// that many lost packets.
    static let maxGap: Int64 = 1000

    let sequence: TransportSequenceNumber
    private var builder: TransportFeedbackBuilder
    private var unwrapper = SequenceUnwrapper()
    /// Unwrapped numbers and arrivals since the last feedback.
    private var pending: [(number: Int64, arrival: Instant)] = []
    private var nextToReport: Int64?
    private var lastArrival: Instant?

    init(sequence: TransportSequenceNumber, senderSSRC: UInt32) {
        self.sequence = sequence
        builder = TransportFeedbackBuilder(senderSSRC: senderSSRC, mediaSSRC: 0)
    }

    /// Notes the packet's arrival if it carries the extension.
    mutating func packetArrived(_ packet: UnsafeRawBufferPointer, at now: Instant) {
        guard let number = sequence.read(packet) else { return }
        lastArrival = now
        if pending.count >= Self.maxPending { pending.removeFirst(pending.count - Self.maxPending + 1) }
        pending.append((unwrapper.unwrap(number), now))
    }

    /// Whether the sender is stamping transport-wide numbers now.
    func inUse(at now: Instant) -> Bool {
        lastArrival.map { now - $0 < Self.inUseFor } ?? false
    }

    /// The feedback for everything since the last one: numbers from the
    /// first not yet reported to the highest arrived, those missing as lost.
    mutating func feedback(mediaSSRC: UInt32) -> [TransportFeedback] {
        guard !pending.isEmpty else { return [] }
        let arrived = pending.sorted { $0.number < $1.number }
        pending.removeAll(keepingCapacity: true)
        let highest = arrived[arrived.count - 1].number
        var first = nextToReport ?? arrived[0].number
        if highest - first > Self.maxGap { first = arrived.first { highest - $0.number <= Self.maxGap }?.number ?? highest }
        var arrivals: [TransportFeedbackBuilder.Arrival] = []
        var next = first
        for packet in arrived where packet.number >= next {
            while next < packet.number {
                arrivals.append(.init(sequenceNumber: UInt16(truncatingIfNeeded: next), time: nil))
                next += 1
            }
            arrivals.append(.init(sequenceNumber: UInt16(truncatingIfNeeded: packet.number), time: packet.arrival))
            next = packet.number + 1
        }
        guard !arrivals.isEmpty else { return [] }
        nextToReport = next
        builder.mediaSSRC = mediaSSRC
        return builder.build(arrivals)
    }
}
