import Media

/// Makes what the encoder sends match what it is asked for (docs/behaviour.md
/// §3.3). x264 with a VBV of a fifth of a second sends 9–12 % under its
/// bitrate on moving content, at any size, so a target the path carries was
/// filled only to 0.75–0.8 with headers: the estimate then climbed on room the
/// encoder never used, to 1.3 × a 1.5 Mbit/s link before the queue said so.
/// The encoder's bitrate is raised by what it fell short over the last
/// window, within a bound; content too simple to use the bits (a still or
/// slow screen, far under) is no shortfall to make up.
public struct EncoderRateAdjuster: Sendable {
    /// Frames are judged a window at a time: about one at 30 fps.
    static let window: Duration = .seconds(1)
    static let minimumFrames = 10
    /// At most this much above the asked-for rate: a little more than the
    /// undershoot measured, so a burst of harder content right after a
    /// quiet window overshoots by no more.
    public static let largestFactor = 1.15
    /// Sending under this share of its bitrate, the encoder has nothing to
    /// spend the bits on: no boost, so the next burst is not raised.
    static let contentLimitedShare = 0.7

    /// By how much to raise the bitrate the encoder is given.
    public private(set) var factor = 1.0
    private var bits = 0.0
    private var asked = 0.0
    private var frames = 0
    private var windowStart: Instant?

    public init() {}

    /// One frame the encoder made: its size in bits, and the bits a frame its
    /// bitrate stood for when it was made (bitrate ÷ frame rate, the factor included).
    public mutating func record(frameBits: Int, askedBits: Double, at now: Instant) {
        guard askedBits > 0 else { return }
        let start = windowStart ?? now
        windowStart = start
        bits += Double(frameBits)
        asked += askedBits
        frames += 1
        guard now - start >= Self.window, frames >= Self.minimumFrames else { return }
        let share = bits / asked
        let wanted = share < Self.contentLimitedShare ? 1 : min(max(1 / share, 1), Self.largestFactor)
        // Half the way at a time: one window's content can be unlike the next.
        factor += (wanted - factor) / 2
        (bits, asked, frames, windowStart) = (0, 0, 0, nil)
    }
}
