/// Turns the 24-bit reference times of successive transport-wide feedbacks
/// into one time line that does not wrap (the field wraps every 2^24 × 64 ms,
/// about 12.4 days), so arrivals from different feedbacks can be compared.
///
/// Each value is placed as close as possible to the last one, as
/// `SequenceUnwrapper` does for sequence numbers, so a feedback that comes
/// late (an older reference time) moves back instead of forward a whole wrap.
public struct FeedbackReferenceTimeUnwrapper: Sendable {
    private var last: Int64?

    public init() {}

    /// The reference time in 64 ms units on the unwrapped line.
    public mutating func unwrap(_ referenceTime: Int32) -> Int64 {
        let value = Int64(referenceTime)
        guard let last else {
            self.last = value
            return value
        }
        let placed = WrapAround.place(value, near: last, bits: 24)
        self.last = placed
        return placed
    }

    /// The feedback's results with arrivals on the unwrapped line.
    public mutating func results(_ feedback: TransportFeedback) -> [TransportFeedback.PacketResult] {
        feedback.results(referenceMicroseconds: unwrap(feedback.referenceTime) * TransportFeedback.referenceTickMicroseconds)
    }
}
