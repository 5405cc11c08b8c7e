/// Places a value of a field that wraps (`bits` wide) on an unwrapped line,
/// as close as possible to the last value: a step of less than half the
/// field's range forward or back (RFC 3550 A.1's rule for sequence numbers).
enum WrapAround {
    static func place(_ value: Int64, near last: Int64, bits: Int) -> Int64 {
        let range: Int64 = 1 << bits
        let half = range / 2
        var delta = (value - last) % range
        if delta >= half { delta -= range }
        if delta < -half { delta += range }
        return last + delta
    }
}
