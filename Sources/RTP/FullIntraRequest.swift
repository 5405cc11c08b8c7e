/// Full Intra Request, RFC 5104 §4.3.1: PSFB (206) with FMT=4.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                              SSRC                             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | Seq nr.       |    Reserved                                   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// The media SSRC of the common header is 0 (§4.3.1.2); each entry names a
/// source. A request repeated with the same sequence number is the same
/// request, so a sender answers each number once.
public struct FullIntraRequest: RTCPMessage {
    public struct Entry: Equatable, Sendable {
        public var ssrc: UInt32
        public var sequenceNumber: UInt8

        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    static let entrySize = 8

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var entries: [Entry]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public var size: Int { FeedbackHeader.size + Self.entrySize * entries.count }

    public var destinationSSRCs: [UInt32] { entries.map(\.ssrc) }

    public func marshal(into out: inout [UInt8]) throws(RTCPError) {
        FeedbackHeader.marshal(
            format: FeedbackHeader.firFormat, packetType: RTCPPacketType.payloadFeedback, packetSize: size,
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, into: &out)
        for entry in entries {
            out.appendUInt32(entry.ssrc)
            out.appendUInt32(UInt32(entry.sequenceNumber) << 24)
        }
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> FullIntraRequest {
        let (sender, media, fci) = try FeedbackHeader.parse(
            bytes, packetType: RTCPPacketType.payloadFeedback, format: FeedbackHeader.firFormat)
        guard fci.count % entrySize == 0 else {
            throw .lengthMismatch(declared: bytes.count, available: FeedbackHeader.size + fci.count / entrySize * entrySize)
        }
        let entries = stride(from: 0, to: fci.count, by: entrySize).map {
            Entry(ssrc: fci.uint32(at: $0), sequenceNumber: fci[$0 + 4])
        }
        return FullIntraRequest(senderSSRC: sender, mediaSSRC: media, entries: entries)
    }
}
