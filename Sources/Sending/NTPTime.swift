import Foundation

/// NTP time for sender reports (RFC 3550 §6.4.1): the one place that reads
/// the wall clock, because an SR must say what time it is for the receiver.
enum NTPTime {
    /// Seconds from 1900 to 1970.
    static let unixEpochOffset: UInt64 = 2_208_988_800

    static func now() -> UInt64 {
        let t = Date().timeIntervalSince1970
        let seconds = UInt64(t) + unixEpochOffset
        let fraction = UInt64((t - t.rounded(.down)) * 4_294_967_296)
        return seconds << 32 | fraction
    }
}
