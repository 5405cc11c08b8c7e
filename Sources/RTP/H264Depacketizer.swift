/// Rebuilds Annex-B access units from RFC 6184 payloads (single NAL unit,
/// STAP-A, FU-A), one per marker bit, flagging those that lost a packet.
public struct H264Depacketizer: Sendable {
    private var assembly = FrameAssembly()
    private var fragmentInProgress = false

    public init() {}

    /// Frames dropped for growing past `FrameAssembly.maxFrameBytes`.
    public var oversizedFrames: Int { assembly.oversizedFrames }

    /// Feeds one payload in arrival order. Returns the access unit when the
    /// packet carries the marker bit (RFC 6184 §5.1: last packet of the AU).
    public mutating func push(
        _ payload: UnsafeRawBufferPointer, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool
    ) -> DepacketizedFrame? {
        if assembly.accept(sequenceNumber: sequenceNumber, timestamp: timestamp) {
            fragmentInProgress = false
        }
        if payload.isEmpty {
            assembly.isComplete = false
        } else {
            read(payload)
        }
        guard marker else { return nil }
        if fragmentInProgress { assembly.isComplete = false }
        fragmentInProgress = false
        return assembly.finish()
    }

    public mutating func push(
        _ payload: [UInt8], sequenceNumber: UInt16, timestamp: UInt32, marker: Bool
    ) -> DepacketizedFrame? {
        payload.withUnsafeBytes { push($0, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker) }
    }

    private mutating func read(_ payload: UnsafeRawBufferPointer) {
        switch payload[0] & H264NALUnitType.mask {
        case H264NALUnitType.stapA:
            readAggregate(payload)
        case H264NALUnitType.fuA:
            readFragment(payload)
        case 1...23:
            appendNAL(payload)
        default:
            // STAP-B, MTAP, FU-B are not allowed in packetization-mode 1.
            assembly.isComplete = false
        }
    }

    private mutating func readAggregate(_ payload: UnsafeRawBufferPointer) {
        var offset = 1
        while offset + H264NALUnitType.stapASizeFieldLength <= payload.count {
            let size = Int(payload.uint16(at: offset))
            offset += H264NALUnitType.stapASizeFieldLength
            guard size > 0, offset + size <= payload.count else {
                assembly.isComplete = false
                return
            }
            appendNAL(UnsafeRawBufferPointer(rebasing: payload[offset..<offset + size]))
            offset += size
        }
        if offset != payload.count { assembly.isComplete = false }
    }

    private mutating func readFragment(_ payload: UnsafeRawBufferPointer) {
        guard payload.count > H264NALUnitType.fuAHeaderLength else {
            assembly.isComplete = false
            return
        }
        let indicator = payload[0]
        let fuHeader = payload[1]
        let body = UnsafeRawBufferPointer(rebasing: payload[H264NALUnitType.fuAHeaderLength...])
        if fuHeader & H264NALUnitType.fuStartBit != 0 {
            // A new start while a fragment was open means the old one lost its end.
            if fragmentInProgress { assembly.isComplete = false }
            let type = fuHeader & H264NALUnitType.mask
            let header = indicator & (H264NALUnitType.forbiddenBit | H264NALUnitType.nriMask) | type
            assembly.append(contentsOf: AnnexB.startCode)
            assembly.append(header)
            if type == H264NALUnitType.idr { assembly.isKeyframe = true }
            fragmentInProgress = true
        } else if !fragmentInProgress {
            // The start fragment never arrived; the rest cannot be used.
            assembly.isComplete = false
            return
        }
        assembly.append(contentsOf: body)
        if fuHeader & H264NALUnitType.fuEndBit != 0 { fragmentInProgress = false }
    }

    private mutating func appendNAL(_ nal: UnsafeRawBufferPointer) {
        if nal[0] & H264NALUnitType.mask == H264NALUnitType.idr { assembly.isKeyframe = true }
        assembly.append(contentsOf: AnnexB.startCode)
        assembly.append(contentsOf: nal)
    }
}
