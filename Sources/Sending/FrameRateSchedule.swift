import Media

/// Which captures a plan below the share's frame rate encodes (docs/behaviour.md §3.2).
/// Owned by a layer's encode thread.
///
/// Frames are spaced by their capture times, not by when their encodes ended: measured from
/// the end of a 1080p encode (10–20 ms), a 125 ms spacing (8 fps) needed five 30 fps frames, not
/// four, and Text and detail sent 6 fps where its plan afforded 8, and 15 where it afforded 27.
/// Each due time follows on from the last one, so a rate that does not divide the share's is
/// kept on average (8 of 30: every third or fourth frame) rather than rounded down.
struct FrameRateSchedule {
    private var due: Instant?

    /// Whether a frame captured at `captureTime` is due. A capture a little before the due time
    /// is the one nearest it on the share's grid (`sharePeriod` apart): the next would be late.
    func admits(captureTime: Instant, sharePeriod: Duration) -> Bool {
        guard let due else { return true }
        return captureTime >= due - sharePeriod * 3 / 5
    }

    /// A frame captured at `captureTime` was encoded; the next is due `period` after the due
    /// time it met, or after the frame itself where it was far from one (a keyframe asked for
    /// between, a pause in the capture, a plan just lowered).
    mutating func encoded(captureTime: Instant, period: Duration, sharePeriod: Duration) {
        if let due, captureTime - due < sharePeriod, due - captureTime < sharePeriod {
            self.due = due + period
        } else {
            due = captureTime + period
        }
    }
}
