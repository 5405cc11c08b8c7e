/// A point on a monotonic time line, in nanoseconds from an arbitrary origin.
///
/// Every time-driven part of the pipeline takes its `Instant`s from a
/// `MonotonicClock` it was given, so tests can move time by hand.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static let zero = Instant(nanoseconds: 0)

    public static func seconds(_ s: Double) -> Instant {
        Instant(nanoseconds: Int64(s * 1e9))
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (a: Instant, d: Duration) -> Instant {
        Instant(nanoseconds: a.nanoseconds + d.nanoseconds)
    }

    public static func - (a: Instant, d: Duration) -> Instant {
        Instant(nanoseconds: a.nanoseconds - d.nanoseconds)
    }

    public static func - (a: Instant, b: Instant) -> Duration {
        .nanoseconds(a.nanoseconds - b.nanoseconds)
    }

    public var description: String {
        let ms = Double(nanoseconds) / 1e6
        return "\(ms.rounded() / 1000)s"
    }
}

extension Duration {
    /// The whole duration in nanoseconds (saturating far outside any media time scale).
    public var nanoseconds: Int64 {
        let (s, attos) = components
        return s * 1_000_000_000 + attos / 1_000_000_000
    }

    /// The duration in seconds as a floating-point number.
    public var inSeconds: Double {
        Double(nanoseconds) / 1e9
    }

    /// Same as `inSeconds`, in milliseconds.
    public var inMilliseconds: Double {
        Double(nanoseconds) / 1e6
    }

    /// One frame's time at `fps` frames a second (at least one a second).
    public static func framePeriod(fps: Int) -> Duration {
        .nanoseconds(1_000_000_000 / Int64(max(1, fps)))
    }
}
