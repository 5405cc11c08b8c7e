import Media

/// Sender-side faults for the recovery gates: the first encoder of a
/// connection goes wrong after a while; the fresh encoder recovery makes
/// is healthy, as a real one mostly is.
public enum EncoderFault: Sendable, Equatable {
    /// x264 stops producing output; the encode calls return nothing.
    case stops(after: Duration)
    /// An encode call never returns.
    case hangs(after: Duration)

    var after: Duration {
        switch self {
        case .stops(let d), .hangs(let d): d
        }
    }

    /// A fault later than a week is no test at all.
    static let maximumSeconds: Double = 7 * 86_400

    /// Parses `stops:12` or `hangs:12` (seconds, at most a week).
    public static func parse(_ text: String) -> EncoderFault? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let seconds = Double(parts[1]), seconds.isFinite, (0...maximumSeconds).contains(seconds) else { return nil }
        switch parts[0] {
        case "stops": return .stops(after: .milliseconds(Int64(seconds * 1000)))
        case "hangs": return .hangs(after: .milliseconds(Int64(seconds * 1000)))
        default: return nil
        }
    }
}
