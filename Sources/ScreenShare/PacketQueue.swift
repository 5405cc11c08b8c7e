import Foundation

/// The pacer's queue: plain RTP packets waiting to be protected and sent,
/// in slots allocated once. Bounded: when full, a packet is dropped and
/// counted rather than letting delay grow without end.
final class PacketQueue: @unchecked Sendable {
    // Safety: every field is guarded by `condition`.
    static let slotSize = 1500
    /// About two 1080p keyframes' worth of packets.
    static let defaultCapacity = 1024

    private let condition = NSCondition()
    private var slots: [[UInt8]]
    private var lengths: [Int]
    private var head = 0
    private var count = 0
    private(set) var dropped = 0
    private var closed = false

    init(capacity: Int = PacketQueue.defaultCapacity) {
        slots = (0..<capacity).map { _ in [UInt8](repeating: 0, count: PacketQueue.slotSize) }
        lengths = [Int](repeating: 0, count: capacity)
    }

    /// Writes a packet with `build` (which returns its length) at the tail.
    @discardableResult
    func push(_ build: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard count < slots.count else {
            dropped += 1
            return false
        }
        let index = (head + count) % slots.count
        lengths[index] = slots[index].withUnsafeMutableBytes { build($0) }
        count += 1
        condition.signal()
        return true
    }

    /// Waits up to `timeout` for a packet, copies it into `out`, and returns its length.
    func pop(into out: inout [UInt8], timeout: TimeInterval) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        if count == 0 && !closed {
            _ = condition.wait(until: Date(timeIntervalSinceNow: timeout))
        }
        guard count > 0 else { return nil }
        let length = lengths[head]
        slots[head].withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<length]))
            }
        }
        head = (head + 1) % slots.count
        count -= 1
        return length
    }

    /// The size of the packet at the head, without taking it.
    var headLength: Int? {
        condition.lock()
        defer { condition.unlock() }
        return count > 0 ? lengths[head] : nil
    }

    var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    func clear() {
        condition.lock()
        head = 0
        count = 0
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
