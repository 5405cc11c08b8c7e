import Media

/// Writes transport-wide feedback for what a receiver saw: one or more
/// `TransportFeedback` packets covering a run of sequence numbers, each
/// small enough for one datagram.
public struct TransportFeedbackBuilder: Sendable {
    /// One packet the receiver knows of: received at `time`, or lost (nil).
    public struct Arrival: Equatable, Sendable {
        public var sequenceNumber: UInt16
        public var time: Instant?

        public init(sequenceNumber: UInt16, time: Instant?) {
            self.sequenceNumber = sequenceNumber
            self.time = time
        }
    }

    /// Keeps a feedback packet, its SRTCP trailer and the compound's other
    /// parts inside the 1200-byte datagrams the sender also uses.
    public static let defaultMaxPacketSize = 1000
    private static let tickNanoseconds: Int64 = 250_000
    private static let referenceTickNanoseconds: Int64 = 64_000_000
    private static let ticksPerReference = referenceTickNanoseconds / tickNanoseconds

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public let maxPacketSize: Int
    /// The count the next feedback carries; wraps at 256.
    public private(set) var feedbackPacketCount: UInt8 = 0
    /// Given to a feedback with no packet received, so the sender's
    /// unwrapper sees no jump in reference time.
    private var lastReferenceTime: Int32 = 0

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, maxPacketSize: Int = TransportFeedbackBuilder.defaultMaxPacketSize) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.maxPacketSize = max(maxPacketSize, FeedbackHeader.size + TransportFeedback.fixedFieldsSize + 8)
    }

    /// The feedback for `arrivals`, given in sequence order (wrapping past
    /// 65535). A gap in the sequence numbers is reported as lost; an entry
    /// that goes backwards is ignored. A new packet starts when one would
    /// grow past `maxPacketSize` or a delta does not fit 16 bits (8 s).
    public mutating func build(_ arrivals: [Arrival]) -> [TransportFeedback] {
        var packets: [TransportFeedback] = []
        var current: Pending?
        for arrival in arrivals {
            if let pending = current {
                let step = arrival.sequenceNumber &- pending.nextSequenceNumber
                if step >= 0x8000 { continue }
                let lost = Int(step)
                if !pending.accepts(lost: lost, arrival: arrival.time, maxSize: maxPacketSize) {
                    packets.append(finish(pending))
                    current = nil
                } else {
                    current?.add(lost: lost, arrival: arrival.time)
                    continue
                }
            }
            var pending = Pending(base: arrival.sequenceNumber)
            pending.add(lost: 0, arrival: arrival.time)
            current = pending
        }
        if let current { packets.append(finish(current)) }
        return packets
    }

    private mutating func finish(_ pending: Pending) -> TransportFeedback {
        let reference = pending.referenceTime.map { Int32(truncatingIfNeeded: ($0 << 40) >> 40) } ?? lastReferenceTime
        lastReferenceTime = reference
        defer { feedbackPacketCount &+= 1 }
        return TransportFeedback(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: pending.base, referenceTime: reference,
            feedbackPacketCount: feedbackPacketCount, receiveDeltas: pending.deltas)
    }

    /// A feedback packet being filled.
    private struct Pending {
        let base: UInt16
        var deltas: [Int16?] = []
        /// In 64 ms units, from the first packet received.
        var referenceTime: Int64?
        /// The last received packet's arrival, in 250 µs ticks.
        var lastTicks: Int64 = 0
        var deltaBytes = 0

        init(base: UInt16) {
            self.base = base
        }

        var nextSequenceNumber: UInt16 { base &+ UInt16(truncatingIfNeeded: deltas.count) }

        func accepts(lost: Int, arrival: Instant?, maxSize: Int) -> Bool {
            let count = deltas.count + lost + 1
            guard count <= TransportFeedback.maxStatusCount else { return false }
            var added = 0
            if let arrival, referenceTime != nil {
                let delta = TransportFeedbackBuilder.ticks(arrival) - lastTicks
                guard let small = Int16(exactly: delta) else { return false }
                added = TransportFeedbackChunk.Symbol(delta: small).deltaSize
            }
            // A 2-bit vector per 7 statuses bounds the chunks from above.
            let chunkBytes = 2 * ((count + TransportFeedbackChunk.twoBitCapacity - 1) / TransportFeedbackChunk.twoBitCapacity)
            return FeedbackHeader.size + TransportFeedback.fixedFieldsSize + chunkBytes + deltaBytes + added + 3 <= maxSize
        }

        mutating func add(lost: Int, arrival: Instant?) {
            deltas.append(contentsOf: repeatElement(nil, count: lost))
            guard let arrival else {
                deltas.append(nil)
                return
            }
            let ticks = TransportFeedbackBuilder.ticks(arrival)
            if referenceTime == nil {
                let reference = TransportFeedbackBuilder.floorDivide(arrival.nanoseconds, TransportFeedbackBuilder.referenceTickNanoseconds)
                referenceTime = reference
                lastTicks = reference * TransportFeedbackBuilder.ticksPerReference
            }
            let delta = Int16(ticks - lastTicks)
            deltas.append(delta)
            deltaBytes += TransportFeedbackChunk.Symbol(delta: delta).deltaSize
            lastTicks = ticks
        }
    }

    static func ticks(_ time: Instant) -> Int64 { floorDivide(time.nanoseconds, tickNanoseconds) }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
