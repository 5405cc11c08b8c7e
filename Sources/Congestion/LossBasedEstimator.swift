import Media

/// The estimate from packet loss alone, whatever says how much is lost
/// (transport-wide feedback, a receiver report's fraction lost, NACKs).
///
/// The rules are the classic send-side ones: above 10 % the path is overrun,
/// so back off to what got through; below 2 % there is room, so grow;
/// in between the path is full, so hold at what it delivers. Growth is
/// bounded by what is really being sent, so an idle sender's estimate does
/// not climb on capacity it never tried.
public struct LossBasedEstimator: Sendable {
    public static let highLoss = 0.10
    public static let lowLoss = 0.02
    /// Under this, a window's loss with no queue in front of it only stops growth: 2 % lost at
    /// random reads 2 % or more in about half of the windows of a 1.5 Mbit/s share (a hundred
    /// packets), and 5 % or more in one of twenty.
    static let randomLossReading = 0.05
    /// Growth while loss stays low, per second.
    static let increasePerSecond = 0.08
    /// Near the rate at which the path last ran out, growth slows to this, or a packet per
    /// response time where that is more (as the delay-based rate control grows near the link):
    /// a bottleneck's queue hides an overrun for seconds before it drops, so 8 % a second would
    /// climb far past the path before loss said so. 2 % alone took 7 s to cross that band at
    /// 0.55 Mbit/s (rtpbin behind a tbf stepped from 0.6 to 1.5 Mbit/s); a packet per response
    /// time is 8 % a second there and 2.4 % at 1.76.
    static let nearLossIncreasePerSecond = 0.02
    /// "Near": at or above this share of that rate.
    static let nearLossShare = 0.9
    /// Sending this far past where the path ran out with no loss, the path has
    /// changed (a link stepped up): that rate no longer slows growth, which
    /// at 2 % a second took 14 s to climb from 0.6 Mbit/s back to 1.5. What is
    /// sent, not the estimate: the encoder sent 0.75–0.8 of an estimate that
    /// passed that point under the link, and the faster growth that followed
    /// took it to 1.9–2.5 Mbit/s over a 1.5 Mbit/s link (rtpbin behind a tbf).
    static let pastLossShare = 1.1
    /// Past there, by how much the path changed nothing says: growth speeds up by 8 % a second
    /// for each second without loss, to at most this. Under 0.9 of where it ran out, it speeds up
    /// so from the last loss, and stops at 0.9 of it. At 8 % a second the climb from a 0.6 Mbit/s
    /// link stepped up to 1.5 took over 15 s into rtpbin behind a tbf.
    static let fastestIncreasePerSecond = 0.32
    /// Back off at most this often: the loss reported just after a back-off
    /// still comes from the rate before it.
    static let decreaseInterval: Duration = .milliseconds(300)
    /// The estimate may grow this far above the estimate the send rate
    /// fills, no further: a target the encoder never fills is untried, and
    /// the next keyframe or burst of motion that does fill it overruns the path.
    static let sendingHeadroom = 1.2
    static let sendingHeadroomFloor = 10_000.0
    static let maxIncreaseInterval: Duration = .seconds(1)
    /// One back-off starts from, and lands on, no lower than this share of
    /// the estimate: what is sent can dip for a moment (a keyframe draining,
    /// a burst of PLIs), and a receiver can ask for packets that were only
    /// late; backing off from such a dip collapsed a 1.7 Mbit/s estimate to
    /// 150 kbit/s in one report.
    static let backOffFloor = 0.5
    /// Behind a queue that stands full, neither filling nor draining, the receiver's NACKs name
    /// packets the bottleneck dropped, not ones that were only late: an overrun lands by its loss
    /// down to this share of the estimate. Held at half, a step from 3 to 0.6 Mbit/s that rtpbin's
    /// NACKs named 59–72 % lost took three halvings, 1 s or more apart, while its view stood still.
    static let standingQueueBackOffFloor = 0.25

    /// An overrun takes at least this much off, as TCP halves its window on
    /// a loss event: from behind a full queue a receiver asks for only some
    /// of what it lost (rtpbin behind a 1.5 Mbit/s tbf, a third: it gives up
    /// without asking on packets too late to repair), so what its NACKs say
    /// got through is an upper bound. Taking off less left a 4 Mbit/s start
    /// overrunning that tbf for four seconds, three back-offs of 30 %.
    static let overrunDecrease = 0.5
    /// Where the path's rate was measured, an overrun lands this far under it: the queue it left
    /// drains at a fifth of the path meanwhile.
    static let underCarried = 0.8

    public private(set) var bitrate: Double
    public private(set) var lastLossRatio: Double?
    /// The last update backed off to under what the path was measured to carry, so the queue the
    /// overrun left drains from now on.
    public private(set) var landedUnderCarried = false
    /// How much of its estimate the sender means to send (its encoder aims
    /// below the target): an estimate is filled when this share of it is sent.
    let applicationShare: Double
    private let lossCountedByNacks: Bool
    /// The estimate at which the path last ran out: what got through an overrun, as an estimate.
    /// Loss without a queue in front of it (random, a burst) says nothing of where that is.
    private var lossOnset: Double?
    /// When growth passed `pastLossShare` of where the path last ran out, with no loss since.
    private var grownPastLossSince: Instant?
    /// The last window that lost 2 % or more.
    private var lastLoss: Instant?
    private var lastUpdate: Instant?
    private var lastDecrease: Instant?

    /// - Parameter lossCountedByNacks: loss comes from NACKs and receiver reports, so a window of
    ///   2–5 % lost with no queue in front of it only stops growth. Counted from transport-wide
    ///   feedback, every loss is seen and the delay estimate tells a queue: such a window holds the
    ///   estimate at what got through, as ever. (Only stopping growth there too, rtpbin with
    ///   transport-cc under 2 % random loss decoded 13–18 fps in four rows, against 16–26.)
    public init(bitrate: Double, applicationShare: Double = 1, lossCountedByNacks: Bool = true) {
        self.bitrate = bitrate
        self.applicationShare = min(max(applicationShare, 0.1), 1)
        self.lossCountedByNacks = lossCountedByNacks
    }

    /// `sending` is the rate the loss was measured on, in bits per second.
    /// While the sender is application-limited, moderate loss holds the
    /// estimate instead of pulling it to the little that is being sent.
    /// `overrun`: the loss came with a standing queue in front of it, so a
    /// bottleneck is overrun (not a burst, not random loss). `carried`: what the
    /// overrun path was measured to carry, in bits per second, if it was. `queueStands`: the
    /// overrun's queue stood full while the loss was measured. `roundTrip` sets
    /// the pace near where the path last ran out: a packet per response time.
    public mutating func update(lossRatio: Double, sending: Double, overrun: Bool = false, carried: Double? = nil,
                                queueStands: Bool = false, applicationLimited: Bool = false,
                                roundTrip: Duration = SendSideBandwidthEstimator.assumedRoundTrip, at now: Instant) {
        let loss = min(max(lossRatio, 0), 1)
        landedUnderCarried = false
        // The estimate that what is sent fills.
        let filled = sending / applicationShare
        lastLossRatio = loss
        defer { lastUpdate = now }
        if loss >= Self.lowLoss { (grownPastLossSince, lastLoss) = (nil, now) }
        // Behind a standing queue even a little loss is the bottleneck's tail drop: the queue is
        // full, so the rate is above the path however few of its drops the receiver asks for.
        if loss > Self.highLoss || (overrun && loss >= Self.lowLoss) {
            if let lastDecrease, now - lastDecrease < Self.decreaseInterval { return }
            lastDecrease = now
            // Behind a full queue what got through is the path: a tail-drop bottleneck loses
            // 1 − link/sent, so this lands on the link in a step or two, where half the loss took
            // five seconds on a 1.5 Mbit/s uplink. Loss with no queue in front of it is a burst (a
            // keyframe overflowing a receiver's socket) or random: half the loss, the classic rule.
            let share = overrun ? max(loss, Self.overrunDecrease) : 0.5 * loss
            let base = max(min(bitrate, sending), Self.backOffFloor * bitrate)
            let measured = carried.map { $0 / applicationShare }
            let landing = measured.map { min(base, Self.underCarried * $0) } ?? base * (1 - share)
            bitrate = max(landing, (overrun && queueStands ? Self.standingQueueBackOffFloor : Self.backOffFloor) * bitrate)
            landedUnderCarried = measured.map { bitrate <= Self.underCarried * $0 } ?? false
            // Where the path ran out is what got through, not the rate that overran it.
            if overrun, !applicationLimited { lossOnset = measured ?? base / applicationShare * (1 - loss) }
        } else if loss >= Self.lowLoss {
            // The path is full, or loses a little on the way (radio, a busy receiver): growth
            // stops. That says nothing of where the path runs out, so growth after it is not
            // slowed. Only a window that loses more than random loss of 2 % reads as in one of
            // twenty holds the estimate at what got through: held there after every window of 2 %
            // or more, the estimate went wherever the encoder's undershoot took it, and under 2 %
            // random loss (about every other window) the sender sent 0.77–0.91 Mbit/s on a
            // 1.5 Mbit/s link (simulated, NACKs for every loss), against 1.12–1.20 now. An
            // estimate the sender does not fill stays no further above it than growth may go.
            if applicationLimited { return }
            let most = lossCountedByNacks && loss < Self.randomLossReading
                ? Self.sendingHeadroom * filled + Self.sendingHeadroomFloor : filled * (1 - loss)
            bitrate = min(bitrate, most)
        } else if let lastUpdate {
            if let onset = lossOnset, filled > Self.pastLossShare * onset { (lossOnset, grownPastLossSince) = (nil, now) }
            let seconds = min(now - lastUpdate, Self.maxIncreaseInterval).inSeconds
            let band = lossOnset.map { Self.nearLossShare * $0 }
            let near = band.map { bitrate >= $0 } ?? false
            // Under where the path last ran out, nothing says it ran out lower: a back-off that
            // halved from 2 to 1 Mbit/s into a 1.5 Mbit/s link (rtpbin behind a tbf) then took six
            // seconds at 8 % a second to come back to 1.6, and the share used 73–75 % of the link.
            let since = grownPastLossSince ?? (band == nil ? nil : lastLoss)
            let far = min(Self.increasePerSecond * (1 + (since.map { (now - $0).inSeconds } ?? 0)),
                          Self.fastestIncreasePerSecond)
            let perSecond = near
                ? max(Self.nearLossIncreasePerSecond * bitrate,
                      AIMDRateControl.additiveIncreasePerSecond(at: bitrate, roundTrip: roundTrip))
                : far * bitrate
            var grown = bitrate + perSecond * seconds
            if let band, bitrate < band { grown = min(grown, band) }
            let limit = Self.sendingHeadroom * filled + Self.sendingHeadroomFloor
            bitrate = min(grown, max(bitrate, limit))
        }
    }

    /// The estimate stands above where the path last ran out, and what was sent since has not
    /// shown the path carries more.
    public var isAboveWhereThePathRanOut: Bool { lossOnset.map { bitrate > $0 } ?? false }

    /// Another estimate that sees the path as well says it carries `value`.
    public mutating func recover(to value: Double) {
        bitrate = max(bitrate, value)
    }

    /// The back-off just taken and the one before were one overrun, told twice: it lands at
    /// `value`, and the path ran out no lower. Left under it, where the path ran out read as passed
    /// as soon as the encoder filled the landing, and growth sped up to 32 % a second: a 4 Mbit/s
    /// start into a 1.5 Mbit/s link climbed from 1.0 to 2.1 Mbit/s in 6.5 s and overran it.
    public mutating func landOneOverrunToldTwice(at value: Double) {
        recover(to: value)
        if let onset = lossOnset { lossOnset = max(onset, bitrate) }
    }

    /// A probe measured what the path carries; unless loss says the path is
    /// overrun, the loss estimate need not climb there at 8 % a second.
    public mutating func probeMeasured(_ value: Double) {
        if (lastLossRatio ?? 0) <= Self.highLoss { bitrate = max(bitrate, value) }
    }
}
