/// Bookkeeping both depacketizers share: the frame being built, and whether
/// a packet went missing since it began.
struct FrameAssembly: Sendable {
    /// docs/behaviour.md §6.2: a frame being put together holds at most this
    /// much. The largest frame the sender can make is a keyframe filling its
    /// VBV buffer, a quarter second of the 100 Mbit/s ceiling (about 3 MB);
    /// past the bound a peer could otherwise grow a frame without limit by
    /// never setting the marker bit nor moving the timestamp on.
    static let maxFrameBytes = 4 * 1024 * 1024

    private(set) var data: [UInt8] = []
    var timestamp: UInt32 = 0
    var isComplete = true
    var isKeyframe = false
    var hasPackets = false
    /// The frame grew past `maxFrameBytes`: its bytes are gone and the rest of its packets are ignored.
    private(set) var isOversized = false
    /// Frames dropped for growing past `maxFrameBytes`.
    private(set) var oversizedFrames = 0
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

    /// Appends to the frame, unless that would take it past the bound: then
    /// the frame is dropped (counted once) and nothing more is kept of it.
    mutating func append(contentsOf bytes: some Collection<UInt8>) {
        guard !isOversized else { return }
        guard data.count + bytes.count <= Self.maxFrameBytes else {
            isOversized = true
            isComplete = false
            oversizedFrames += 1
            data = []
            return
        }
        data.append(contentsOf: bytes)
    }

    mutating func append(_ byte: UInt8) {
        append(contentsOf: CollectionOfOne(byte))
    }

    /// The frame on its marker; an oversized one comes back empty and
    /// incomplete, so the receiver asks for a keyframe.
    mutating func finish() -> DepacketizedFrame {
        let frame = DepacketizedFrame(data: data, timestamp: timestamp, isComplete: isComplete, isKeyframe: isKeyframe && !isOversized)
        reset()
        return frame
    }

    private mutating func reset() {
        if isOversized {
            data = []
        } else {
            data.removeAll(keepingCapacity: true)
        }
        isComplete = true
        isKeyframe = false
        hasPackets = false
        isOversized = false
    }
}
