/// Reading H.264 Annex-B byte streams (ITU-T H.264 Annex B): NAL units
/// separated by start codes `00 00 01` or `00 00 00 01`.
public enum AnnexB {
    /// The start code the depacketizers write before each NAL unit.
    public static let startCode: [UInt8] = [0, 0, 0, 1]

    /// Calls `body` with each NAL unit's byte range in `stream`, start codes
    /// stripped, without allocating.
    public static func forEachNALUnit(
        in stream: UnsafeRawBufferPointer, _ body: (Range<Int>) throws -> Void
    ) rethrows {
        var cursor = NALUnitCursor(stream)
        while let range = cursor.next() { try body(range) }
    }

    /// Whether the access unit holds an IDR slice (nal_unit_type 5), so a
    /// decoder can start from it.
    public static func containsIDR(_ accessUnit: UnsafeRawBufferPointer) -> Bool {
        var found = false
        forEachNALUnit(in: accessUnit) { range in
            if !range.isEmpty, accessUnit[range.lowerBound] & H264NALUnitType.mask == H264NALUnitType.idr {
                found = true
            }
        }
        return found
    }

    public static func containsIDR(_ accessUnit: [UInt8]) -> Bool {
        accessUnit.withUnsafeBytes { containsIDR($0) }
    }

    /// The first sequence parameter set (nal_unit_type 7), header byte
    /// included, as SDP `sprop-parameter-sets` and level checks need it.
    public static func sequenceParameterSet(in accessUnit: [UInt8]) -> [UInt8]? {
        accessUnit.withUnsafeBytes { raw in
            var sps: [UInt8]?
            forEachNALUnit(in: raw) { range in
                if sps == nil, !range.isEmpty,
                   raw[range.lowerBound] & H264NALUnitType.mask == H264NALUnitType.sps {
                    sps = Array(raw[range])
                }
            }
            return sps
        }
    }
}

/// Walks start codes; a NAL unit ends where the next start code begins.
struct NALUnitCursor {
    private let stream: UnsafeRawBufferPointer
    private var position: Int

    init(_ stream: UnsafeRawBufferPointer) {
        self.stream = stream
        self.position = NALUnitCursor.startCodeEnd(in: stream, from: 0) ?? stream.count
    }

    mutating func next() -> Range<Int>? {
        guard position < stream.count else { return nil }
        let start = position
        var index = start
        while index + 2 < stream.count {
            if stream[index] == 0, stream[index + 1] == 0, stream[index + 2] == 1 {
                // A four-byte start code's leading zero is not part of the NAL unit.
                let end = index > start && stream[index - 1] == 0 ? index - 1 : index
                position = index + 3
                return start..<end
            }
            index += 1
        }
        position = stream.count
        return start..<stream.count
    }

    /// The offset just past the first start code at or after `from`.
    private static func startCodeEnd(in stream: UnsafeRawBufferPointer, from: Int) -> Int? {
        var index = from
        while index + 2 < stream.count {
            if stream[index] == 0, stream[index + 1] == 0, stream[index + 2] == 1 { return index + 3 }
            index += 1
        }
        return nil
    }
}
