import Media

/// What a receiver counts for one source to fill RR report blocks,
/// following RFC 3550 A.3 (loss) and A.8 (interarrival jitter).
public struct ReceptionStatistics: Sendable {
    public let ssrc: UInt32
    /// RTP timestamp units per second: 90 000 for video.
    public let clockRate: Int

    private var unwrapper = SequenceUnwrapper()
    private var base: Int64?
    /// Extended highest sequence number seen, RFC 3550 A.3 `max_seq` with cycles.
    public private(set) var highestSequence: Int64 = 0
    public private(set) var received: Int64 = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0

    /// Interarrival jitter in RTP timestamp units.
    public private(set) var jitter: Double = 0
    private var lastArrivalUnits: Int64?
    private var lastTimestamp: UInt32 = 0

    private var lastSenderReport: (compactNTP: UInt32, arrival: Instant)?

    public init(ssrc: UInt32, clockRate: Int = 90_000) {
        self.ssrc = ssrc
        self.clockRate = clockRate
    }

    /// Packets expected from the first sequence number to the highest.
    public var expected: Int64 { base.map { highestSequence - $0 + 1 } ?? 0 }

    /// Cumulative loss; negative when duplicates outnumber losses.
    public var lost: Int64 { expected - received }

    /// Counts one RTP packet as it arrives.
    public mutating func record(sequenceNumber: UInt16, rtpTimestamp: UInt32, arrival: Instant) {
        let extended = unwrapper.unwrap(sequenceNumber)
        if let first = base {
            base = min(first, extended)
            highestSequence = max(highestSequence, extended)
        } else {
            base = extended
            highestSequence = extended
        }
        received += 1

        let arrivalUnits = arrival.nanoseconds / 1000 * Int64(clockRate) / 1_000_000
        if let lastArrival = lastArrivalUnits {
            // transit(i) - transit(i-1), with the RTP timestamp difference taken modulo 2^32.
            let timestampStep = Int64(Int32(bitPattern: rtpTimestamp &- lastTimestamp))
            let d = abs((arrivalUnits - lastArrival) - timestampStep)
            jitter += (Double(d) - jitter) / 16
        }
        lastArrivalUnits = arrivalUnits
        lastTimestamp = rtpTimestamp
    }

    /// Notes an SR from this source so the next report can echo LSR/DLSR.
    public mutating func recordSenderReport(_ report: SenderReport, arrival: Instant) {
        lastSenderReport = (report.compactNTPTime, arrival)
    }

    /// The report block for an RR sent at `now`; starts a new interval for
    /// the fraction lost.
    public mutating func makeReport(now: Instant) -> ReceptionReport {
        let expectedInterval = expected - expectedPrior
        let receivedInterval = received - receivedPrior
        let lostInterval = expectedInterval - receivedInterval
        expectedPrior = expected
        receivedPrior = received
        let fraction = expectedInterval == 0 || lostInterval <= 0 ? 0 : min(255, (lostInterval << 8) / expectedInterval)

        var delay: UInt32 = 0
        if let sr = lastSenderReport {
            // DLSR is in units of 1/65536 s.
            delay = UInt32(clamping: (now - sr.arrival).nanoseconds * 65536 / 1_000_000_000)
        }
        return ReceptionReport(
            ssrc: ssrc, fractionLost: UInt8(fraction),
            totalLost: Int32(clamping: lost),
            highestSequence: UInt32(truncatingIfNeeded: highestSequence),
            jitter: UInt32(jitter),
            lastSR: lastSenderReport?.compactNTP ?? 0, delaySinceLastSR: delay)
    }
}
