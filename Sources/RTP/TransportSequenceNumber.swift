/// The transport-wide sequence number header extension
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2): one 16-bit
/// counter over every packet the sender puts on the transport, whatever its
/// SSRC, so the receiver's transport-wide feedback (RTPFB FMT=15) can say
/// when each packet arrived.
///
/// ```
///  0                   1                   2
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | L=1   |transport-wide sequence number |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// The ID is negotiated in SDP (`a=extmap`), so it is a value, not a constant.
public struct TransportSequenceNumber: Equatable, Sendable {
    public static let uri = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// Next to abs-send-time's 3; used when the session description leaves the choice to the sender.
    public static let defaultExtensionID: UInt8 = 5
    static let dataSize = 2

    public let extensionID: UInt8

    /// Nil for an ID the one-byte form cannot carry (outside 1–14).
    public init?(extensionID: UInt8 = TransportSequenceNumber.defaultExtensionID) {
        guard HeaderExtensionBlock.validIDs.contains(extensionID) else { return nil }
        self.extensionID = extensionID
    }

    /// The element to put in a packet's extension block.
    public func element(_ sequenceNumber: UInt16) -> HeaderExtensionBlock.Element {
        HeaderExtensionBlock.Element(
            id: extensionID, data: [UInt8(truncatingIfNeeded: sequenceNumber >> 8), UInt8(truncatingIfNeeded: sequenceNumber)])
    }

    /// Writes `sequenceNumber` into the packet's element, in place, when the
    /// packet leaves; false (and the packet untouched) when it has none.
    @discardableResult
    public func stamp(_ packet: UnsafeMutableRawBufferPointer, sequenceNumber: UInt16) -> Bool {
        guard let data = HeaderExtensionBlock.locate(id: extensionID, in: UnsafeRawBufferPointer(packet)),
              data.count == Self.dataSize else { return false }
        packet.storeUInt16(sequenceNumber, at: data.lowerBound)
        return true
    }

    /// The packet's transport-wide sequence number, nil when it carries none
    /// or its extension block is malformed.
    public func read(_ packet: UnsafeRawBufferPointer) -> UInt16? {
        guard let data = HeaderExtensionBlock.locate(id: extensionID, in: packet), data.count == Self.dataSize else {
            return nil
        }
        return packet.uint16(at: data.lowerBound)
    }
}
