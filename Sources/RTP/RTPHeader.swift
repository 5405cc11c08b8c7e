/// The fixed RTP header plus CSRCs, RFC 3550 §5.1.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           timestamp                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           synchronization source (SSRC) identifier            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |            contributing source (CSRC) identifiers             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// Header extensions (§5.3.1) are skipped when parsing and never written:
/// the sender uses none.
public struct RTPHeader: Equatable, Sendable {
    public static let version: UInt8 = 2
    /// Size of the header without CSRCs or extension.
    public static let fixedSize = 12

    static let versionShift: UInt8 = 6
    static let paddingBit: UInt8 = 0x20
    static let extensionBit: UInt8 = 0x10
    static let csrcCountMask: UInt8 = 0x0F
    static let markerBit: UInt8 = 0x80
    static let payloadTypeMask: UInt8 = 0x7F
    static let extensionHeaderSize = 4

    public var padding: Bool
    /// Whether the packet on the wire carried a header extension (skipped).
    public var hasExtension: Bool
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    public var csrcs: [UInt32]

    public init(
        padding: Bool = false, marker: Bool = false, payloadType: UInt8,
        sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, csrcs: [UInt32] = []
    ) {
        self.padding = padding
        self.hasExtension = false
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
    }

    /// Bytes `marshal` writes: the fixed header and the CSRCs.
    public var size: Int { Self.fixedSize + 4 * csrcs.count }

    /// Appends the header; the extension bit is always written as 0.
    public func marshal(into out: inout [UInt8]) {
        var first = Self.version << Self.versionShift | UInt8(csrcs.count) & Self.csrcCountMask
        if padding { first |= Self.paddingBit }
        out.append(first)
        out.append((marker ? Self.markerBit : 0) | payloadType & Self.payloadTypeMask)
        out.appendUInt16(sequenceNumber)
        out.appendUInt32(timestamp)
        out.appendUInt32(ssrc)
        for csrc in csrcs.prefix(Int(Self.csrcCountMask)) { out.appendUInt32(csrc) }
    }

    /// The sender's hot path: writes a 12-byte header without CSRCs into
    /// `buffer` at its start, allocating nothing.
    public static func write(
        into buffer: UnsafeMutableRawBufferPointer, marker: Bool, payloadType: UInt8,
        sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32
    ) throws(RTPError) {
        guard buffer.count >= fixedSize else {
            throw .bufferTooSmall(needed: fixedSize, capacity: buffer.count)
        }
        buffer[0] = version << versionShift
        buffer[1] = (marker ? markerBit : 0) | payloadType & payloadTypeMask
        buffer.storeUInt16(sequenceNumber, at: 2)
        buffer.storeUInt32(timestamp, at: 4)
        buffer.storeUInt32(ssrc, at: 8)
    }
}
