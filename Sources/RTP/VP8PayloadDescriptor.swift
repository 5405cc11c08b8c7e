/// The VP8 payload descriptor, RFC 7741 §4.2.
///
/// ```
///       0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+
///      |X|R|N|S|R| PID | (REQUIRED)
///      +-+-+-+-+-+-+-+-+
/// X:   |I|L|T|K| RSV   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// I:   |M| PictureID   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
///      |   PictureID   | (when M=1)
///      +-+-+-+-+-+-+-+-+
/// L:   |   TL0PICIDX   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// ```
enum VP8PayloadDescriptor {
    static let extendedBit: UInt8 = 0x80
    static let startBit: UInt8 = 0x10
    static let partitionIndexMask: UInt8 = 0x07
    static let pictureIDBit: UInt8 = 0x80
    static let tl0PicIndexBit: UInt8 = 0x40
    static let tidBit: UInt8 = 0x20
    static let keyIndexBit: UInt8 = 0x10
    /// M: the PictureID takes 15 bits over two octets.
    static let longPictureIDBit: UInt8 = 0x80
    static let pictureIDMask: UInt16 = 0x7FFF
    /// What the packetizer writes: required octet, X octet, two PictureID octets.
    static let sentSize = 4

    /// VP8 payload header (RFC 7741 §4.3) first octet: |Size0|H|VER|P|; P=0 is a key frame.
    static let inverseKeyFrameBit: UInt8 = 0x01

    struct Parsed {
        var isStartOfPartition: Bool
        var partitionIndex: UInt8
        var headerSize: Int
    }

    /// Nil when the descriptor claims more octets than the payload has.
    static func parse(_ payload: UnsafeRawBufferPointer) -> Parsed? {
        guard !payload.isEmpty else { return nil }
        let first = payload[0]
        var size = 1
        if first & extendedBit != 0 {
            guard payload.count > size else { return nil }
            let extensions = payload[size]
            size += 1
            if extensions & pictureIDBit != 0 {
                guard payload.count > size else { return nil }
                size += payload[size] & longPictureIDBit != 0 ? 2 : 1
            }
            if extensions & tl0PicIndexBit != 0 { size += 1 }
            if extensions & (tidBit | keyIndexBit) != 0 { size += 1 }
        }
        guard payload.count >= size else { return nil }
        return Parsed(isStartOfPartition: first & startBit != 0, partitionIndex: first & partitionIndexMask, headerSize: size)
    }
}
