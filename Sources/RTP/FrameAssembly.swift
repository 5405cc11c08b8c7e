/// Bookkeeping both depacketizers share: the frame being built, and whether
/// a packet went missing since it began.
struct FrameAssembly: Sendable {
    var data: [UInt8] = []
    var timestamp: UInt32 = 0
    var isComplete = true
    var isKeyframe = false
    var hasPackets = false
    private var lastSequenceNumber: UInt16?

    /// Starts a new frame when the timestamp moves on without a marker (the
    /// marker packet was lost: the old frame is dropped and the new one is
    /// known to follow a gap), and marks the frame when sequence numbers skip.
    /// Returns true when an unfinished frame was dropped.
    @discardableResult
    mutating func accept(sequenceNumber: UInt16, timestamp: UInt32) -> Bool {
        let dropped = hasPackets && timestamp != self.timestamp
        if dropped {
            reset()
            isComplete = false
        }
        if let last = lastSequenceNumber, sequenceNumber != last &+ 1 {
            isComplete = false
        }
        lastSequenceNumber = sequenceNumber
        self.timestamp = timestamp
        hasPackets = true
        return dropped
    }

    /// A padding-only packet took this number: no gap, and nothing for the frame.
    mutating func skip(sequenceNumber: UInt16) {
        if let last = lastSequenceNumber, sequenceNumber != last &+ 1 { isComplete = false }
        lastSequenceNumber = sequenceNumber
    }

    mutating func finish() -> DepacketizedFrame {
        let frame = DepacketizedFrame(data: data, timestamp: timestamp, isComplete: isComplete, isKeyframe: isKeyframe)
        reset()
        return frame
    }

    private mutating func reset() {
        data.removeAll(keepingCapacity: true)
        isComplete = true
        isKeyframe = false
        hasPackets = false
    }
}
