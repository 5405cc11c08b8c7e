/// Rebuilds VP8 frames from RFC 7741 payloads, one per marker bit, flagging
/// frames that lost a packet.
public struct VP8Depacketizer: Sendable {
    private var assembly = FrameAssembly()
    private var sawStart = false

    public init() {}

    /// Frames dropped for growing past `FrameAssembly.maxFrameBytes`.
    public var oversizedFrames: Int { assembly.oversizedFrames }

    /// Feeds one payload in arrival order; returns the frame on the marker bit.
    public mutating func push(
        _ payload: UnsafeRawBufferPointer, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool
    ) -> DepacketizedFrame? {
        if assembly.accept(sequenceNumber: sequenceNumber, timestamp: timestamp) { sawStart = false }
        if let descriptor = VP8PayloadDescriptor.parse(payload) {
            let body = UnsafeRawBufferPointer(rebasing: payload[descriptor.headerSize...])
            if descriptor.isStartOfPartition && descriptor.partitionIndex == 0 {
                // A second start inside one frame means packets were mixed up or lost.
                if sawStart || !assembly.data.isEmpty { assembly.isComplete = false }
                sawStart = true
                if let first = body.first {
                    assembly.isKeyframe = first & VP8PayloadDescriptor.inverseKeyFrameBit == 0
                }
            }
            assembly.append(contentsOf: body)
        } else {
            assembly.isComplete = false
        }
        guard marker else { return nil }
        if !sawStart { assembly.isComplete = false }
        sawStart = false
        return assembly.finish()
    }

    public mutating func push(
        _ payload: [UInt8], sequenceNumber: UInt16, timestamp: UInt32, marker: Bool
    ) -> DepacketizedFrame? {
        payload.withUnsafeBytes { push($0, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker) }
    }
}
