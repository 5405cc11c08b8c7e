import Media

/// The pacer's clock: each packet books the link for its size at the
/// pacing rate; the next may leave when the booking ends. A few
/// milliseconds of slack let packets leave in small groups, which costs
/// the link nothing and spares the thread a wake-up per packet.
struct PacingBudget {
    static let slack: Duration = .milliseconds(5)
    private var bookedUntil = Instant.zero

    func delay(forBytes bytes: Int, rate: Int, now: Instant) -> Duration {
        let wait = bookedUntil - now
        return wait > PacingBudget.slack ? wait - PacingBudget.slack : .zero
    }

    mutating func spend(bytes: Int, rate: Int, now: Instant) {
        let start = max(now, bookedUntil)
        bookedUntil = start + .nanoseconds(Int64(bytes) * 8 * 1_000_000_000 / Int64(max(rate, 1)))
    }
}
