import Media
import RTP
import SRTP
import Transport

/// Holds RTP packets briefly so that late and retransmitted ones (answers
/// to NACKs) are put back in sequence before depacketizing. A gap that is
/// still open after `patience` is given up on: the packets after it are
/// released, and the frame that lost a packet is reported incomplete.
struct ReorderBuffer {
    /// Long enough for a NACK and its retransmission on a path with a
    /// queue of up to ~200 ms; short enough that a lost packet costs a
    /// keyframe quickly rather than a long freeze.
    static let patience: Duration = .milliseconds(250)
    static let capacity = 1024

    struct Packet {
        var bytes: [UInt8]
        var payloadRange: Range<Int>
        var header: RTPHeader
        var arrival: Instant
        /// abs-send-time, when the sender stamps it.
        var sendTime: UInt32?
    }

    private var unwrapper = SequenceUnwrapper()
    private var pending: [Int64: Packet] = [:]
    private var next: Int64?
    private var gapSince: Instant?
    private(set) var gaveUp = 0
    private(set) var late = 0

    /// Adds a packet; returns the packets now ready, in order.
    mutating func insert(_ packet: Packet, now: Instant) -> [Packet] {
        let seq = unwrapper.unwrap(packet.header.sequenceNumber)
        if let n = next, seq < n {
            late += 1
            return []
        }
        if next == nil { next = seq }
        pending[seq] = packet
        if pending.count > ReorderBuffer.capacity {
            return release(skippingTo: pending.keys.min()!, now: now)
        }
        return drain(now: now)
    }

    /// Releases what waited too long behind a gap.
    mutating func expire(now: Instant) -> [Packet] {
        guard let since = gapSince, now - since >= ReorderBuffer.patience, let first = pending.keys.min() else { return [] }
        return release(skippingTo: first, now: now)
    }

    private mutating func release(skippingTo seq: Int64, now: Instant) -> [Packet] {
        gaveUp += 1
        next = seq
        gapSince = nil
        return drain(now: now)
    }

    private mutating func drain(now: Instant) -> [Packet] {
        var ready: [Packet] = []
        while let n = next, let p = pending.removeValue(forKey: n) {
            ready.append(p)
            next = n + 1
        }
        if pending.isEmpty {
            gapSince = nil
        } else if gapSince == nil {
            gapSince = now
        }
        return ready
    }
}
