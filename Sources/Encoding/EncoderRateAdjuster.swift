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
    /// How far the raise may go, and under what share of its bitrate the
    /// encoder is taken to have nothing to spend the bits on (no raise, so the
    /// next burst of harder content is not raised with it).
    public struct Bounds: Sendable, Equatable {
        public let largestFactor: Double
        public let contentLimitedShare: Double
    }

    /// Frames are judged a window at a time: about one at 30 fps.
    static let window: Duration = .seconds(1)
    static let minimumFrames = 10
    /// A buffer of five frames or more: a little more than the undershoot
    /// measured, so a burst of harder content right after a quiet window
    /// overshoots by no more.
    public static let roomyBuffer = Bounds(largestFactor: 1.15, contentLimitedShare: 0.7)
    /// Under five frames x264 falls further short: Text and detail at 10 fps
    /// with 0.3 s of buffer (3.5 frames) sent 0.52–0.93 of its bitrate on the
    /// moving screen, 0.52–0.74 in its first 6 s.
    public static let shortBuffer = Bounds(largestFactor: 1.4, contentLimitedShare: 0.5)
    /// x264 plans a frame differently when its buffer holds fewer frames than this.
    static let roomyBufferFrames = 5.0

    private static func bounds(bufferFrames: Double) -> Bounds {
        bufferFrames < roomyBufferFrames ? shortBuffer : roomyBuffer
    }

    /// By how much to raise the bitrate the encoder is given.
    public private(set) var factor = 1.0
    /// The bounds of the last window judged.
    public private(set) var bounds = EncoderRateAdjuster.roomyBuffer
    private var bits = 0.0
    private var asked = 0.0
    private var frames = 0
    private var windowStart: Instant?

    public init() {}

    /// One frame the encoder made: its size in bits, the bits a frame its
    /// bitrate stood for when it was made (bitrate ÷ frame rate, the factor
    /// included), and the encoder's buffer (VBV) in bits.
    public mutating func record(frameBits: Int, askedBits: Double, bufferBits: Int, at now: Instant) {
        guard askedBits > 0 else { return }
        let start = windowStart ?? now
        windowStart = start
        bits += Double(frameBits)
        asked += askedBits
        frames += 1
        guard now - start >= Self.window, frames >= Self.minimumFrames else { return }
        // Frames of the unraised rate, so the raise itself does not move the bounds.
        bounds = Self.bounds(bufferFrames: Double(bufferBits) / (askedBits / factor))
        let share = bits / asked
        let wanted = share < bounds.contentLimitedShare ? 1 : min(max(1 / share, 1), bounds.largestFactor)
        // Half the way at a time: one window's content can be unlike the next.
        factor += (wanted - factor) / 2
        (bits, asked, frames, windowStart) = (0, 0, 0, nil)
    }
}
