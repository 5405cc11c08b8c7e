/// NAL unit header fields and types used by RFC 6184 packetization.
///
/// ```
/// +---------------+
/// |0|1|2|3|4|5|6|7|
/// +-+-+-+-+-+-+-+-+
/// |F|NRI|  Type   |
/// +---------------+
/// ```
enum H264NALUnitType {
    static let mask: UInt8 = 0x1F
    static let forbiddenBit: UInt8 = 0x80
    static let nriMask: UInt8 = 0x60

    static let idr: UInt8 = 5
    static let sps: UInt8 = 7
    static let pps: UInt8 = 8
    /// RFC 6184 §5.7.1.
    static let stapA: UInt8 = 24
    /// RFC 6184 §5.8.
    static let fuA: UInt8 = 28

    /// FU header (RFC 6184 §5.8): |S|E|R|Type|.
    static let fuStartBit: UInt8 = 0x80
    static let fuEndBit: UInt8 = 0x40

    static let stapASizeFieldLength = 2
    static let fuAHeaderLength = 2
}
