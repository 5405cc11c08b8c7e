import Media

/// Where a share's pictures come from. A source runs on a thread of its own
/// and pushes into its `CaptureOutput`; `stop` waits until that thread is done.
public protocol CaptureSource: AnyObject, Sendable {
    /// Words for status and logs, e.g. "synthetic 1920×1080" or "X11 :1 monitor HDMI-1".
    var name: String { get }
    /// The size frames will have (already within the 1920 cap).
    var frameSize: (width: Int, height: Int) { get }
    /// Which monitor, window or node this is, as far as the source knows.
    var subject: CaptureSubject { get }
    func start(_ output: CaptureOutput) throws(CaptureError)
    func stop()
}

/// What a capture feeds: takes each changed picture, hears that the screen
/// is still (so a still screen is not mistaken for a dead capture), and hears
/// failures.
public protocol CaptureSink: AnyObject, Sendable {
    /// `surface` is held by the caller for the length of the call; hold it to keep it.
    func captured(_ surface: Surface)
    /// The capture is alive and nothing on screen changed.
    func captureIdle()
    func captureFailed(_ error: CaptureError)
}

/// docs/behaviour.md §2.2 caps: frames at most 1920 on the long side and 30 a second.
public enum CaptureLimits {
    public static let maxLongSide = 1920
    public static let maxFPS = 30

    /// A size within the cap, keeping the aspect ratio, with even sides (4:2:0 needs them).
    public static func capped(width: Int, height: Int) -> (width: Int, height: Int) {
        let long = max(width, height)
        guard long > maxLongSide else { return (width & ~1, height & ~1) }
        let w = width * maxLongSide / long
        let h = height * maxLongSide / long
        return (w & ~1, h & ~1)
    }
}
