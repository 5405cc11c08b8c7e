/// Generic NACK, RFC 4585 §6.2.1: RTPFB (205) with FMT=1.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            PID                |             BLP               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// PID is a lost packet; bit i of BLP set means PID+i+1 was lost as well.
public struct GenericNACK: RTCPMessage {
    public struct Pair: Equatable, Sendable {
        public var packetID: UInt16
        public var lostBitmask: UInt16

        public init(packetID: UInt16, lostBitmask: UInt16 = 0) {
            self.packetID = packetID
            self.lostBitmask = lostBitmask
        }

        /// The lost sequence numbers this pair names, in order.
        public var sequenceNumbers: [UInt16] {
            [packetID] + (0..<16).filter { lostBitmask & (1 << $0) != 0 }.map { packetID &+ UInt16($0 + 1) }
        }
    }

    static let pairSize = 4
    static let bitmaskSpan: UInt16 = 16

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var pairs: [Pair]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, pairs: [Pair]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.pairs = pairs
    }

    /// Builds the pairs for `lost`, given in sending order (wraps 65535→0).
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers lost: [UInt16]) {
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, pairs: Self.pairs(for: lost))
    }

    public static func pairs(for lost: [UInt16]) -> [Pair] {
        var pairs: [Pair] = []
        for seq in lost {
            if var last = pairs.last {
                let distance = seq &- last.packetID
                if distance == 0 { continue }
                if distance <= bitmaskSpan {
                    last.lostBitmask |= 1 << (distance - 1)
                    pairs[pairs.count - 1] = last
                    continue
                }
            }
            pairs.append(Pair(packetID: seq))
        }
        return pairs
    }

    /// Every sequence number the receiver asks for.
    public var lostSequenceNumbers: [UInt16] { pairs.flatMap(\.sequenceNumbers) }

    public var size: Int { FeedbackHeader.size + Self.pairSize * pairs.count }

    public var destinationSSRCs: [UInt32] { [mediaSSRC] }

    public func marshal(into out: inout [UInt8]) throws(RTCPError) {
        FeedbackHeader.marshal(
            format: FeedbackHeader.nackFormat, packetType: RTCPPacketType.transportFeedback, packetSize: size,
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, into: &out)
        for pair in pairs {
            out.appendUInt16(pair.packetID)
            out.appendUInt16(pair.lostBitmask)
        }
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> GenericNACK {
        let (sender, media, fci) = try FeedbackHeader.parse(
            bytes, packetType: RTCPPacketType.transportFeedback, format: FeedbackHeader.nackFormat)
        let pairs = stride(from: 0, to: fci.count / pairSize * pairSize, by: pairSize).map {
            Pair(packetID: fci.uint16(at: $0), lostBitmask: fci.uint16(at: $0 + 2))
        }
        return GenericNACK(senderSSRC: sender, mediaSSRC: media, pairs: pairs)
    }
}
