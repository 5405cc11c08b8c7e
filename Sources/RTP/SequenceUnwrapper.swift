/// Turns 16-bit RTP sequence numbers into a count that never wraps.
///
/// Each number is placed as close as possible to the last one: a step of
/// less than half the number space forward or back (RFC 3550 A.1), so
/// 65535 → 0 moves forward by one and a late 65535 after 0 moves back.
public struct SequenceUnwrapper: Sendable {
    /// The highest value returned so far; never negative.
    private var last: Int64?

    public init() {}

    public mutating func unwrap(_ sequenceNumber: UInt16) -> Int64 {
        guard let last else {
            last = Int64(sequenceNumber)
            return Int64(sequenceNumber)
        }
        let value = WrapAround.place(Int64(sequenceNumber), near: last, bits: 16)
        self.last = max(last, value)
        return value
    }
}
