import Media

/// The header extensions a stream carries, under the ids the receiver
/// negotiated for them (SDP `a=extmap`, RFC 8285): abs-send-time and the
/// transport-wide sequence number, in one one-byte-header block written
/// with zeroed data when a packet is made and stamped when it leaves.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       0xBE    |    0xDE       |           length=2            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | ID=ast| L=2   |          abs-send-time (24 bits)              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | ID=tw | L=1   | transport-wide sequence number|  0 (padding)  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct HeaderExtensionMap: Equatable, Sendable {
    public let absoluteSendTimeID: UInt8?
    public let transportSequenceNumber: TransportSequenceNumber?
    /// The block's bytes with zeroed data, empty when the stream carries none.
    private let placeholder: [UInt8]

    /// What a stream carries when nobody negotiated anything: abs-send-time
    /// under id 3, which receivers that do not know it skip.
    public static let standard = HeaderExtensionMap(absoluteSendTimeID: AbsoluteSendTime.extensionID)!

    /// Nil when an id is outside 1–14 or both extensions are given the same one.
    public init?(absoluteSendTimeID: UInt8?, transportSequenceNumber: TransportSequenceNumber? = nil) {
        var elements: [HeaderExtensionBlock.Element] = []
        if let id = absoluteSendTimeID { elements.append(.init(id: id, data: AbsoluteSendTime.placeholder.data)) }
        if let sequence = transportSequenceNumber {
            guard sequence.extensionID != absoluteSendTimeID else { return nil }
            elements.append(sequence.element(0))
        }
        guard let block = HeaderExtensionBlock(elements) else { return nil }
        self.absoluteSendTimeID = absoluteSendTimeID
        self.transportSequenceNumber = transportSequenceNumber
        if elements.isEmpty {
            placeholder = []
        } else {
            var bytes = [UInt8](repeating: 0, count: RTPHeader.fixedSize)
            block.append(to: &bytes)
            placeholder = Array(bytes[RTPHeader.fixedSize...])
        }
    }

    /// The bytes the block adds to each packet.
    public var size: Int { placeholder.count }

    /// Appends the block to a packet holding just its 12-byte header, and sets the X bit.
    func appendPlaceholder(to packet: inout [UInt8]) {
        guard !placeholder.isEmpty else { return }
        packet[0] |= RTPHeader.extensionBit
        packet.append(contentsOf: placeholder)
    }

    /// Writes the send time and the transport-wide sequence number into a
    /// packet made with this map, as it leaves.
    public func stamp(_ packet: UnsafeMutableRawBufferPointer, at time: Instant, transportSequenceNumber sequence: UInt16) {
        if let id = absoluteSendTimeID { AbsoluteSendTime.stamp(packet, at: time, extensionID: id) }
        transportSequenceNumber?.stamp(packet, sequenceNumber: sequence)
    }
}
