import Media
import RTP

/// The pacer's queue: plain RTP packets waiting to be protected and sent,
/// in slots allocated once, released at the `Pacer`'s rate. Bounded: when
/// full, a packet is dropped and counted rather than letting delay grow.
final class PacketQueue: @unchecked Sendable {
    // Safety: every field is guarded by `condition`.
    static let slotSize = 1500
    /// About two 1080p keyframes' worth of packets.
    static let defaultCapacity = 1024

    enum Next {
        case packet(length: Int, info: PacketInfo)
        case wait(until: Instant)
        case empty
    }

    private let condition: ClockCondition
    private var slots: [[UInt8]]
    private var lengths: [Int]
    private var infos: [PacketInfo]
    private var head = 0
    private var pacer: Pacer
    private var closed = false

    init(capacity: Int = PacketQueue.defaultCapacity, rate: Int, clock: any MonotonicClock) {
        condition = clock.makeCondition()
        slots = (0..<capacity).map { _ in [UInt8](repeating: 0, count: PacketQueue.slotSize) }
        lengths = [Int](repeating: 0, count: capacity)
        infos = [PacketInfo](repeating: .empty, count: capacity)
        pacer = Pacer(rateBitsPerSecond: Double(max(rate, 1)), queueCapacity: capacity)
    }

    /// Writes a packet with `build` (which returns its length) at the tail;
    /// one with its own `rate` (a probe's) leaves at that rate.
    @discardableResult
    func push(_ info: PacketInfo, rate: Double? = nil, _ build: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        condition.withLock {
            let index = (head + pacer.queuedPackets) % slots.count
            guard pacer.queuedPackets < slots.count else {
                pacer.enqueue(size: 0)
                return false
            }
            let length = slots[index].withUnsafeMutableBytes { build($0) }
            lengths[index] = length
            infos[index] = info
            pacer.enqueue(size: length, mayBurst: !info.keyframe && info.kind == .media, rate: rate)
            condition.signal()
            return true
        }
    }

    /// Writes a packet ahead of everything waiting: a retransmission, which
    /// the receiver is holding a frame back for.
    @discardableResult
    func pushFirst(_ info: PacketInfo, _ build: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        condition.withLock {
            guard pacer.queuedPackets < slots.count else {
                pacer.enqueueFirst(size: 0)
                return false
            }
            head = (head + slots.count - 1) % slots.count
            let length = slots[head].withUnsafeMutableBytes { build($0) }
            lengths[head] = length
            infos[head] = info
            pacer.enqueueFirst(size: length)
            condition.signal()
            return true
        }
    }

    /// Takes the head packet into `out` if the pacer lets it leave at `now`.
    func pop(into out: inout [UInt8], now: Instant) -> Next {
        condition.withLock {
            guard let ready = pacer.nextSendTime(now: now) else { return .empty }
            guard ready <= now, let length = pacer.dequeue(now: now) else { return .wait(until: ready) }
            slots[head].withUnsafeBytes { src in
                out.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<length])) }
            }
            let info = infos[head]
            head = (head + 1) % slots.count
            return .packet(length: length, info: info)
        }
    }

    /// Waits until `deadline`, or until a packet arrives in an empty queue, or the queue closes.
    func wait(until deadline: Instant) {
        condition.withLock {
            if !closed { condition.wait(until: deadline) }
        }
    }

    /// Ends a wait early: the sender has something new to decide.
    func wake() {
        condition.withLock { condition.broadcast() }
    }

    /// The pacing rate, and how much of it unused an ordinary frame may spend at once.
    func setRate(_ rate: Int, burstBudget: Duration) {
        condition.withLock {
            pacer.rateBitsPerSecond = Double(max(rate, 1))
            pacer.burstBudget = burstBudget
        }
    }

    var dropped: Int { condition.withLock { pacer.droppedPackets } }
    var queued: Int { condition.withLock { pacer.queuedPackets } }
    /// How long what waits here takes to leave at the pacing rate.
    var delay: Duration { condition.withLock { pacer.queueDelay } }

    /// Forgets queued packets (a new transceiver's stream replaces them).
    func clear() {
        condition.withLock {
            pacer.clear()
            head = 0
        }
    }

    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }
}
