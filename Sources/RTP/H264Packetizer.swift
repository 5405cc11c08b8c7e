/// Splits H.264 access units into RTP payloads, RFC 6184 packetization-mode 1.
///
/// Consecutive NAL units that fit together (SPS and PPS above all) leave as
/// one STAP-A (§5.7.1), a NAL unit that fits alone as a single NAL unit
/// packet (§5.6), a larger one as FU-A fragments (§5.8). Payloads are built
/// in a scratch buffer kept between calls, so a warm packetizer allocates
/// nothing per frame.
public struct H264Packetizer: Sendable {
    /// Leaves room under a 1500-byte MTU for IP, UDP, RTP, SRTP and TURN headers.
    public static let defaultMaxPayloadSize = 1200

    public let maxPayloadSize: Int
    private var scratch: [UInt8]
    private var aggregatedCount = 0

    /// `maxPayloadSize` must leave room for a FU-A header and one byte of data.
    public init(maxPayloadSize: Int = H264Packetizer.defaultMaxPayloadSize) {
        precondition(maxPayloadSize > H264NALUnitType.fuAHeaderLength, "payload size too small for FU-A")
        self.maxPayloadSize = maxPayloadSize
        scratch = []
        scratch.reserveCapacity(maxPayloadSize)
    }

    /// Calls `emit` with each payload in order; the flag is true for the
    /// last payload of the access unit, which goes out with the marker bit.
    ///
    /// `units` may be part of an access unit — whole NAL units, handed on as
    /// the encoder finishes them — with `endsAccessUnit` false on all but the
    /// last part; each part's payloads leave at once, so NAL units are
    /// aggregated only within a part.
    public mutating func packetize(
        _ units: UnsafeRawBufferPointer, endsAccessUnit: Bool = true,
        emit: (_ payload: UnsafeRawBufferPointer, _ isLastOfAccessUnit: Bool) throws -> Void
    ) rethrows {
        var cursor = NALUnitCursor(units)
        var next = cursor.next()
        while let range = next {
            next = cursor.next()
            let isLast = next == nil && endsAccessUnit
            let nal = UnsafeRawBufferPointer(rebasing: units[range])
            guard !nal.isEmpty else { continue }
            if aggregatedCount > 0 && scratch.count + H264NALUnitType.stapASizeFieldLength + nal.count > maxPayloadSize {
                try flushAggregate(isLast: false, emit: emit)
            }
            if nal.count + H264NALUnitType.stapASizeFieldLength + 1 <= maxPayloadSize {
                aggregate(nal)
            } else if nal.count <= maxPayloadSize {
                try flushAggregate(isLast: false, emit: emit)
                try emit(nal, isLast)
            } else {
                try flushAggregate(isLast: false, emit: emit)
                try fragment(nal, isLastNAL: isLast, emit: emit)
            }
        }
        try flushAggregate(isLast: endsAccessUnit, emit: emit)
    }

    public mutating func packetize(
        _ units: [UInt8], endsAccessUnit: Bool = true,
        emit: (_ payload: UnsafeRawBufferPointer, _ isLastOfAccessUnit: Bool) throws -> Void
    ) rethrows {
        try units.withUnsafeBytes { try packetize($0, endsAccessUnit: endsAccessUnit, emit: emit) }
    }

    /// STAP-A, RFC 6184 §5.7.1: a NAL header of type 24, then each NAL unit
    /// behind a 16-bit size. F is the OR and NRI the maximum of the members'.
    private mutating func aggregate(_ nal: UnsafeRawBufferPointer) {
        if aggregatedCount == 0 {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(H264NALUnitType.stapA)
        }
        let header = nal[0]
        let nri = max(scratch[0] & H264NALUnitType.nriMask, header & H264NALUnitType.nriMask)
        scratch[0] = scratch[0] & ~H264NALUnitType.nriMask | nri | header & H264NALUnitType.forbiddenBit
        scratch.appendUInt16(UInt16(nal.count))
        scratch.append(contentsOf: nal)
        aggregatedCount += 1
    }

    private mutating func flushAggregate(
        isLast: Bool, emit: (UnsafeRawBufferPointer, Bool) throws -> Void
    ) rethrows {
        guard aggregatedCount > 0 else { return }
        let single = aggregatedCount == 1
        aggregatedCount = 0
        // One NAL unit alone goes as a single NAL unit packet, without the STAP-A framing.
        let skip = single ? 1 + H264NALUnitType.stapASizeFieldLength : 0
        try scratch.withUnsafeBytes { try emit(UnsafeRawBufferPointer(rebasing: $0[skip...]), isLast) }
    }

    /// FU-A, RFC 6184 §5.8:
    /// ```
    /// FU indicator   FU header
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// |F|NRI|  28     |S|E|R|  Type   |
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// ```
    /// The NAL header byte itself is not sent; the receiver rebuilds it.
    private mutating func fragment(
        _ nal: UnsafeRawBufferPointer, isLastNAL: Bool,
        emit: (UnsafeRawBufferPointer, Bool) throws -> Void
    ) rethrows {
        let header = nal[0]
        let indicator = header & (H264NALUnitType.forbiddenBit | H264NALUnitType.nriMask) | H264NALUnitType.fuA
        let type = header & H264NALUnitType.mask
        let chunk = maxPayloadSize - H264NALUnitType.fuAHeaderLength
        var offset = 1
        while offset < nal.count {
            let end = min(offset + chunk, nal.count)
            var fuHeader = type
            if offset == 1 { fuHeader |= H264NALUnitType.fuStartBit }
            if end == nal.count { fuHeader |= H264NALUnitType.fuEndBit }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(indicator)
            scratch.append(fuHeader)
            scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: nal[offset..<end]))
            let last = isLastNAL && end == nal.count
            try scratch.withUnsafeBytes { try emit($0, last) }
            offset = end
        }
    }
}
