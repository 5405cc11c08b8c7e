/// docs/behaviour.md §2.4: a frame that reaches the encoder more than 100 ms after it was
/// captured is dropped; encoding it would only add to the delay a person sees.
public enum FrameLateness {
    public static let limit: Duration = .milliseconds(100)

    public static func isLate(captureTime: Instant, now: Instant) -> Bool {
        now - captureTime > limit
    }
}
