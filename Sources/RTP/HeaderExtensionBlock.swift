/// An RFC 8285 one-byte-header extension block: the `0xBEDE` profile, a
/// length in 32-bit words, then elements of an ID/length byte and 1–16 data
/// bytes, zero-padded to a word.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       0xBE    |    0xDE       |           length=3            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | L=0   |     data      |  ID   |  L=1  |   data...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Several extensions (abs-send-time, the transport-wide sequence number)
/// share one block, since an RTP packet carries at most one.
public struct HeaderExtensionBlock: Equatable, Sendable {
    public struct Element: Equatable, Sendable {
        public var id: UInt8
        public var data: [UInt8]

        public init(id: UInt8, data: [UInt8]) {
            self.id = id
            self.data = data
        }
    }

    /// RFC 8285 §4.2: the profile value of the one-byte-header form.
    static let oneByteProfile: UInt16 = 0xBEDE
    /// RFC 8285 §4.2: IDs 1–14 name elements; 0 is padding, 15 ends the block.
    public static let validIDs: ClosedRange<UInt8> = 1...14
    static let terminatingID: UInt8 = 15
    static let maxElementSize = 16

    public var elements: [Element]

    /// Elements with an ID outside 1–14 or a size outside 1–16 bytes cannot
    /// be written in this form; nil for those.
    public init?(_ elements: [Element]) {
        guard elements.allSatisfy({ Self.validIDs.contains($0.id) && (1...Self.maxElementSize).contains($0.data.count) })
        else { return nil }
        self.elements = elements
    }

    /// The block's bytes: profile and length word plus the padded elements.
    public var size: Int {
        let body = elements.reduce(0) { $0 + 1 + $1.data.count }
        return RTPHeader.extensionHeaderSize + (body + 3) / 4 * 4
    }

    /// Appends the block to a packet holding just its RTP header and sets the X bit.
    public func append(to packet: inout [UInt8]) {
        packet[0] |= RTPHeader.extensionBit
        packet.appendUInt16(Self.oneByteProfile)
        packet.appendUInt16(UInt16((size - RTPHeader.extensionHeaderSize) / 4))
        let end = packet.count + size - RTPHeader.extensionHeaderSize
        for element in elements {
            packet.append(element.id << 4 | UInt8(element.data.count - 1))
            packet.append(contentsOf: element.data)
        }
        packet.append(contentsOf: repeatElement(0, count: end - packet.count))
    }

    /// Where the data of element `id` lies in an RTP packet, if its one-byte
    /// block has one. Every length is checked against the packet: a
    /// malformed block gives nil.
    public static func locate(id: UInt8, in packet: UnsafeRawBufferPointer) -> Range<Int>? {
        guard packet.count >= RTPHeader.fixedSize, packet[0] & RTPHeader.extensionBit != 0 else { return nil }
        let start = RTPHeader.fixedSize + 4 * Int(packet[0] & RTPHeader.csrcCountMask)
        guard packet.count >= start + RTPHeader.extensionHeaderSize, packet.uint16(at: start) == oneByteProfile else {
            return nil
        }
        let end = start + RTPHeader.extensionHeaderSize + 4 * Int(packet.uint16(at: start + 2))
        guard end <= packet.count else { return nil }
        var i = start + RTPHeader.extensionHeaderSize
        while i < end {
            let byte = packet[i]
            if byte == 0 {
                i += 1
                continue
            }
            let elementID = byte >> 4
            if elementID == terminatingID { return nil }
            let data = i + 1..<i + 2 + Int(byte & 0x0F)
            guard data.upperBound <= end else { return nil }
            if elementID == id { return data }
            i = data.upperBound
        }
        return nil
    }
}
