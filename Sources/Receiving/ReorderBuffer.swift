import Media
import RTP
import SRTP
import Transport

/// Holds RTP packets briefly so that late and retransmitted ones (answers
/// to NACKs) are put back in sequence before depacketizing. A packet waits
/// behind a gap for at most `patience` from its own arrival: then the gap is
/// given up on, the packets after it are released, and the frame that lost
/// a packet is reported incomplete. Patience counted from when a gap reached
/// the head instead would make each of several gaps in a row wait its own
/// `patience`, one after the other, so that on a lossy link the view fell
/// further behind with every gap and never caught up.
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
    private(set) var gaveUp = 0
    private(set) var late = 0

    /// Adds a packet; returns the packets now ready, in order.
    mutating func insert(_ packet: Packet) -> [Packet] {
        let seq = unwrapper.unwrap(packet.header.sequenceNumber)
        if let n = next, seq < n {
            late += 1
            return []
        }
        if next == nil { next = seq }
        pending[seq] = packet
        if pending.count > ReorderBuffer.capacity {
            return release(skippingTo: pending.keys.min()!)
        }
        return drain()
    }

    /// Releases every packet that has waited `patience` behind a gap, and
    /// whatever follows it in sequence.
    mutating func expire(now: Instant) -> [Packet] {
        var ready: [Packet] = []
        while let oldest = pending.values.lazy.map(\.arrival).min(), now - oldest >= ReorderBuffer.patience {
            ready += release(skippingTo: pending.keys.min()!)
        }
        return ready
    }

    private mutating func release(skippingTo seq: Int64) -> [Packet] {
        gaveUp += 1
        next = seq
        return drain()
    }

    private mutating func drain() -> [Packet] {
        var ready: [Packet] = []
        while let n = next, let p = pending.removeValue(forKey: n) {
            ready.append(p)
            next = n + 1
        }
        return ready
    }
}
