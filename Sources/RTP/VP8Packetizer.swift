/// Splits VP8 frames into RTP payloads, RFC 7741 §4.
///
/// Every payload carries a 4-octet descriptor: X=1, I=1, M=1 and a 15-bit
/// PictureID that grows by one per frame, so a receiver can tell which frame
/// a loss hit. S=1 and PID=0 mark the frame's first payload: the whole frame
/// is sent as partition 0. The payload scratch buffer is reused, so a warm
/// packetizer allocates nothing per frame.
public struct VP8Packetizer: Sendable {
    public let maxPayloadSize: Int
    public private(set) var pictureID: UInt16
    private var scratch: [UInt8]

    public init(maxPayloadSize: Int = H264Packetizer.defaultMaxPayloadSize, firstPictureID: UInt16 = 0) {
        precondition(maxPayloadSize > VP8PayloadDescriptor.sentSize, "payload size too small for the VP8 descriptor")
        self.maxPayloadSize = maxPayloadSize
        self.pictureID = firstPictureID & VP8PayloadDescriptor.pictureIDMask
        scratch = []
        scratch.reserveCapacity(maxPayloadSize)
    }

    /// Calls `emit` with each payload; the flag is true for the frame's last
    /// payload, which goes out with the marker bit.
    public mutating func packetize(
        _ frame: UnsafeRawBufferPointer,
        emit: (_ payload: UnsafeRawBufferPointer, _ isLastOfFrame: Bool) throws -> Void
    ) rethrows {
        let chunk = maxPayloadSize - VP8PayloadDescriptor.sentSize
        var offset = 0
        repeat {
            let end = min(offset + chunk, frame.count)
            scratch.removeAll(keepingCapacity: true)
            scratch.append(VP8PayloadDescriptor.extendedBit | (offset == 0 ? VP8PayloadDescriptor.startBit : 0))
            scratch.append(VP8PayloadDescriptor.pictureIDBit)
            scratch.appendUInt16(UInt16(VP8PayloadDescriptor.longPictureIDBit) << 8 | pictureID)
            scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: frame[offset..<end]))
            try scratch.withUnsafeBytes { try emit($0, end == frame.count) }
            offset = end
        } while offset < frame.count
        pictureID = (pictureID &+ 1) & VP8PayloadDescriptor.pictureIDMask
    }

    public mutating func packetize(
        _ frame: [UInt8],
        emit: (_ payload: UnsafeRawBufferPointer, _ isLastOfFrame: Bool) throws -> Void
    ) rethrows {
        try frame.withUnsafeBytes { try packetize($0, emit: emit) }
    }
}
