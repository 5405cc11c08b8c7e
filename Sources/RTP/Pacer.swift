import Media

/// Spreads packets over time at a set rate, so a keyframe of a few hundred
/// kilobytes does not leave as one burst that overflows router queues, and
/// lets an ordinary frame leave at line rate when there is room for it
/// (docs/behaviour.md §7.5).
///
/// Pure logic on the `Instant`s it is given: the sender enqueues each
/// packet's size (and keeps the packet itself in the same order), asks
/// `nextSendTime` when to wake, and calls `dequeue` to take the head packet
/// once it may leave. A leaky bucket: each packet sent pushes `readyAt`
/// forward by its size over the rate; a packet may go once `readyAt` is
/// within `burstAllowance` of now. While the sender sends less than the
/// rate, the bucket saves up to `burstBudget` of it: a packet that may burst
/// spends those savings and leaves at once, one that may not (a keyframe's)
/// starts the bucket from now, so it is spread whatever was saved.
public struct Pacer: Sendable {
    /// WebRTC paces at 2.5× the encoder's target, so a keyframe drains in
    /// well under a frame period's worth of extra delay.
    public static let defaultRateMultiplier = 2.5
    /// About a keyframe and a half at 1200-byte packets.
    public static let defaultQueueCapacity = 512
    /// Lets a few packets leave together, so the sender is not woken for every one.
    public static let defaultBurstAllowance = Duration.milliseconds(5)
    /// The savings an ordinary frame may spend at once when the link has room:
    /// 120 ms at 2.5× the target is 0.3 s of the target, the most the
    /// encoder's VBV lets one frame take, so any frame the encoder makes fits.
    public static let roomBurstBudget = Duration.milliseconds(120)

    /// The burst budget for a link: none when the link is the limit, where
    /// faster than the estimate only fills the bottleneck's queue.
    public static func burstBudget(linkIsTheLimit: Bool) -> Duration {
        linkIsTheLimit ? .zero : roomBurstBudget
    }

    /// The pacing rate; change it when the target bitrate changes.
    public var rateBitsPerSecond: Double
    public let burstAllowance: Duration
    /// How much unused rate the bucket keeps for packets that may burst.
    public var burstBudget: Duration = .zero
    /// Packets refused because the queue was full.
    public private(set) var droppedPackets = 0
    public private(set) var queuedBytes = 0

    private var sizes: [Int]
    private var bursts: [Bool]
    /// A packet's own rate (a probe cluster's), 0 for the pacing rate.
    private var rates: [Double]
    private var head = 0
    public private(set) var queuedPackets = 0
    private var readyAt = Instant(nanoseconds: Int64.min / 2)

    public init(
        rateBitsPerSecond: Double, queueCapacity: Int = Pacer.defaultQueueCapacity,
        burstAllowance: Duration = Pacer.defaultBurstAllowance
    ) {
        precondition(rateBitsPerSecond > 0 && queueCapacity > 0, "pacer needs a positive rate and queue")
        self.rateBitsPerSecond = rateBitsPerSecond
        self.burstAllowance = burstAllowance
        sizes = [Int](repeating: 0, count: queueCapacity)
        bursts = [Bool](repeating: false, count: queueCapacity)
        rates = [Double](repeating: 0, count: queueCapacity)
    }

    public var queueCapacity: Int { sizes.count }

    /// Queues a packet of `size` bytes; false (and counted) when the queue is
    /// full. `mayBurst`: it may spend the bucket's savings (not a keyframe's).
    /// A packet with its own `rate` (a probe cluster's) leaves at that rate,
    /// and is charged to the bucket at it.
    @discardableResult
    public mutating func enqueue(size: Int, mayBurst: Bool = false, rate: Double? = nil) -> Bool {
        guard queuedPackets < sizes.count else {
            droppedPackets += 1
            return false
        }
        let tail = (head + queuedPackets) % sizes.count
        sizes[tail] = size
        bursts[tail] = mayBurst
        rates[tail] = rate ?? 0
        queuedPackets += 1
        queuedBytes += size
        return true
    }

    /// Queues a packet ahead of everything waiting (a retransmission: the
    /// receiver is holding a frame back for it).
    @discardableResult
    public mutating func enqueueFirst(size: Int) -> Bool {
        guard queuedPackets < sizes.count else {
            droppedPackets += 1
            return false
        }
        head = (head + sizes.count - 1) % sizes.count
        sizes[head] = size
        rates[head] = 0
        bursts[head] = false
        queuedPackets += 1
        queuedBytes += size
        return true
    }

    /// How long what is queued takes to leave at the pacing rate.
    public var queueDelay: Duration {
        .nanoseconds(Int64(Double(queuedBytes * 8) / rateBitsPerSecond * 1e9))
    }

    /// When the head of the queue may leave: `now` or later; nil when empty.
    public func nextSendTime(now: Instant) -> Instant? {
        guard queuedPackets > 0 else { return nil }
        return max(now, readyAt - burstAllowance)
    }

    /// Whether a packet may leave at `now` outside the queue (retransmissions,
    /// RTCP). Its size is charged afterwards by `didSend`, so it does not
    /// change the answer.
    public func canSend(now: Instant) -> Bool {
        readyAt - burstAllowance <= now
    }

    /// Takes the head packet if it may leave at `now`, charges it to the
    /// bucket and returns its size.
    public mutating func dequeue(now: Instant) -> Int? {
        guard queuedPackets > 0, canSend(now: now) else { return nil }
        let size = sizes[head]
        let mayBurst = bursts[head]
        let rate = rates[head]
        head = (head + 1) % sizes.count
        queuedPackets -= 1
        queuedBytes -= size
        charge(size, now: now, savings: mayBurst ? burstBudget : .zero, rate: rate > 0 ? rate : nil)
        return size
    }

    /// Charges a packet sent outside the queue to the bucket.
    public mutating func didSend(size: Int, now: Instant, rate: Double? = nil) {
        charge(size, now: now, savings: .zero, rate: rate)
    }

    /// Pushes `readyAt` on by the packet's time at the rate, from no earlier
    /// than `savings` before now: what the bucket kept unused is spent first.
    private mutating func charge(_ size: Int, now: Instant, savings: Duration, rate: Double?) {
        let seconds = Double(size * 8) / (rate ?? rateBitsPerSecond)
        readyAt = max(readyAt, now - savings) + .nanoseconds(Int64(seconds * 1e9))
    }

    /// Forgets queued packets, e.g. when a keyframe replaces them.
    public mutating func clear() {
        head = 0
        queuedPackets = 0
        queuedBytes = 0
    }
}
