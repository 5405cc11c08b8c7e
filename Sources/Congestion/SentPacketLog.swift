import Media
import RTP

/// What the sender put on the transport, by transport-wide sequence number,
/// so transport-wide feedback can be matched to sizes and send times; and
/// from what was acknowledged, the rate the path really delivered.
///
/// A ring: the oldest entries are overwritten, so memory stays fixed
/// whatever the receiver does or fails to do.
public struct SentPacketLog: Sendable {
    public enum Kind: Equatable, Sendable {
        case media
        case retransmission
        case padding
        case probe(cluster: Int)
    }

    /// A sent packet and, once feedback told, its fate.
    public struct Entry: Equatable, Sendable {
        public var sequenceNumber: Int64
        public var size: Int
        public var sendTime: Instant
        public var kind: Kind
        /// Arrival on the receiver's clock (unwrapped reference time); nil if lost.
        public var arrival: Duration?
    }

    /// At 5 Mbit/s of 1200-byte packets, about 8 s of sending: longer than
    /// any feedback is worth waiting for.
    public static let defaultCapacity = 4096
    /// Long enough to span several frames and a feedback interval, short
    /// enough that a back-off just after a probe's jump is taken from the
    /// new rate, not from the old one still in the window.
    static let acknowledgedWindow: Duration = .milliseconds(250)
    /// Less than this span of arrivals says too little about a rate.
    static let minimumAcknowledgedSpan: Duration = .milliseconds(100)
    /// The sender putting nothing on the path for this long paused (new frames waiting for the
    /// path's queue to drain): longer than a frame period at 5 fps and more, whose gaps are the
    /// sender's own cadence, not a pause.
    static let sendingPause: Duration = .milliseconds(250)
    /// What is left of a window around such a pause says something from this much on: the
    /// paused start above left 82 ms, 16 packets.
    static let minimumBusySpan: Duration = .milliseconds(50)

    private var ring: [Entry?]
    private var reported: [Bool]
    /// The newest packet feedback told arrived, unwrapped.
    private var newestArrived: Int64?
    /// The newest packet feedback told of, arrived or lost, unwrapped.
    private var newestReported: Int64?
    /// The next transport-wide sequence number, unwrapped.
    public private(set) var nextSequenceNumber: Int64 = 0
    private var timeline = FeedbackReferenceTimeUnwrapper()
    /// Acknowledged (arrival, send time, size) in arrival order, for the delivered rate.
    private var acknowledged: [(arrival: Duration, sent: Instant, size: Int)] = []

    public init(capacity: Int = SentPacketLog.defaultCapacity) {
        ring = Array(repeating: nil, count: max(capacity, 16))
        reported = Array(repeating: false, count: max(capacity, 16))
    }

    /// Records a packet about to leave; returns the sequence number to stamp in it.
    public mutating func record(size: Int, at time: Instant, kind: Kind) -> UInt16 {
        let slot = Int(nextSequenceNumber % Int64(ring.count))
        ring[slot] = Entry(sequenceNumber: nextSequenceNumber, size: size, sendTime: time, kind: kind, arrival: nil)
        reported[slot] = false
        defer { nextSequenceNumber += 1 }
        return UInt16(truncatingIfNeeded: nextSequenceNumber)
    }

    /// The entries a feedback reports on for the first time, in sequence
    /// order; numbers never sent or already overwritten are skipped, and so
    /// is a packet reported twice.
    public mutating func match(_ feedback: TransportFeedback) -> [Entry] {
        var entries: [Entry] = []
        for result in timeline.results(feedback) {
            guard let slot = slot(of: result.sequenceNumber), var entry = ring[slot], !reported[slot] else { continue }
            reported[slot] = true
            newestReported = max(newestReported ?? entry.sequenceNumber, entry.sequenceNumber)
            entry.arrival = result.arrival
            ring[slot] = entry
            entries.append(entry)
            if let arrival = result.arrival {
                acknowledge(arrival: arrival, sent: entry.sendTime, size: entry.size)
                newestArrived = max(newestArrived ?? entry.sequenceNumber, entry.sequenceNumber)
            }
        }
        return entries
    }

    /// Whether the packet stamped `sequenceNumber` arrived, as feedback told; nil until it has
    /// (or once its entry is overwritten). One that feedback passed over, telling of a later
    /// packet's arrival and never of it, did not: rtpbin begins each feedback at the first packet
    /// it received since the last, so a packet lost just before is told of in none. Waited for,
    /// such packets were never resent, a fifth of the losses under 2 % random loss, and each cost
    /// a keyframe (docs/benchmarks.md).
    public func arrived(_ sequenceNumber: UInt16) -> Bool? {
        guard let slot = slot(of: sequenceNumber), let entry = ring[slot] else { return nil }
        if reported[slot] { return entry.arrival != nil }
        guard let newestArrived, entry.sequenceNumber < newestArrived else { return nil }
        return false
    }

    /// Where the newest packet sent under a 16-bit number is kept, if it still is.
    private func slot(of sequenceNumber: UInt16) -> Int? {
        guard nextSequenceNumber > 0 else { return nil }
        let highest = nextSequenceNumber - 1
        let sequence = highest - Int64(UInt16(truncatingIfNeeded: highest) &- sequenceNumber)
        guard sequence >= 0 else { return nil }
        let slot = Int(sequence % Int64(ring.count))
        guard ring[slot]?.sequenceNumber == sequence else { return nil }
        return slot
    }

    private mutating func acknowledge(arrival: Duration, sent: Instant, size: Int) {
        let index = acknowledged.lastIndex { $0.arrival <= arrival }.map { $0 + 1 } ?? 0
        acknowledged.insert((arrival, sent, size), at: index)
        let newest = acknowledged[acknowledged.count - 1].arrival
        let stale = acknowledged.prefix { newest - $0.arrival > Self.acknowledgedWindow }.count
        acknowledged.removeFirst(stale)
    }

    /// Bits per second put on the transport over the last `window` up to `now`, of every kind:
    /// all of it queues at a bottleneck.
    public func sentBitrate(over window: Duration, at now: Instant) -> Double {
        var bytes = 0
        var sequence = nextSequenceNumber - 1
        while sequence >= max(0, nextSequenceNumber - Int64(ring.count)),
              let entry = ring[Int(sequence % Int64(ring.count))], entry.sequenceNumber == sequence,
              now - entry.sendTime <= window {
            bytes += entry.size
            sequence -= 1
        }
        return Double(bytes * 8) / window.inSeconds
    }

    /// Bytes on their way: sent after the newest packet feedback has told of, and no longer ago
    /// than `window` (what feedback never tells of, lost at the tail of a burst, leaves the count
    /// then).
    public func bytesInFlight(sentWithin window: Duration, at now: Instant) -> Int {
        var bytes = 0
        var sequence = nextSequenceNumber - 1
        let oldest = max(newestReported.map { $0 + 1 } ?? 0, nextSequenceNumber - Int64(ring.count))
        while sequence >= oldest, let entry = ring[Int(sequence % Int64(ring.count))], entry.sequenceNumber == sequence,
              now - entry.sendTime <= window {
            bytes += entry.size
            sequence -= 1
        }
        return bytes
    }

    /// Bits per second that reached the receiver over the last quarter second
    /// of arrivals; nil until enough has arrived to say.
    public var acknowledgedBitrate: Double? {
        guard let first = acknowledged.first, let last = acknowledged.last else { return nil }
        let span = last.arrival - first.arrival
        guard span >= Self.minimumAcknowledgedSpan else { return nil }
        // The first packet's bytes arrived before the span began.
        let bytes = acknowledged.dropFirst().reduce(0) { $0 + $1.size }
        return Double(bytes * 8) / span.inSeconds
    }

    /// The same without what arrived across a pause of the sender's: where two packets that
    /// arrived one after the other left `sendingPause` or more apart, the path between them may
    /// have stood idle, and that stretch and the packet that ended it are left out. Nil when what
    /// is left spans too little to say (`minimumBusySpan`).
    ///
    /// After a start from the cap into a 1.5 Mbit/s tbf, new frames waited for the path's queue
    /// to drain (§7.5 of docs/behaviour.md): the sender sent nothing for 0.43 s, nothing arrived for
    /// 0.17 s of the window, and counted, the window read 0.52 Mbit/s delivered.
    public var busyAcknowledgedBitrate: Double? {
        var bytes = 0
        var span = Duration.zero
        for (earlier, later) in zip(acknowledged, acknowledged.dropFirst())
        where later.sent - earlier.sent < Self.sendingPause {
            span += later.arrival - earlier.arrival
            bytes += later.size
        }
        guard span >= Self.minimumBusySpan else { return nil }
        return Double(bytes * 8) / span.inSeconds
    }
}
