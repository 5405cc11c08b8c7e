/// Transport-wide congestion control feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): RTPFB (205),
/// FMT=15. The receiver says, for a range of transport-wide sequence
/// numbers, which packets arrived and when.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     SSRC of packet sender                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      SSRC of media source                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      base sequence number     |      packet status count      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 reference time                | fb pkt. count |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |          packet chunk         |         packet chunk          |
/// :               ...             |  recv delta   |  recv delta   :
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// The reference time is a signed 24-bit count of 64 ms; each receive delta
/// counts 250 µs from the previous received packet (the first from the
/// reference time). Written the way libwebrtc writes it: padded to a word
/// with the P bit set and the pad count in the last byte.
public struct TransportFeedback: RTCPMessage {
    /// What the feedback says of one packet.
    public struct PacketResult: Equatable, Sendable {
        public var sequenceNumber: UInt16
        /// Arrival on the receiver's clock, from the origin of its reference
        /// time; nil when the packet was not received.
        public var arrival: Duration?

        public init(sequenceNumber: UInt16, arrival: Duration?) {
            self.sequenceNumber = sequenceNumber
            self.arrival = arrival
        }
    }

    public static let deltaTick: Duration = .microseconds(250)
    public static let referenceTick: Duration = .milliseconds(64)
    static let deltaTickMicroseconds: Int64 = 250
    static let referenceTickMicroseconds: Int64 = 64_000
    /// Base sequence number, status count, reference time, feedback count.
    static let fixedFieldsSize = 8
    static let maxStatusCount = Int(UInt16.max)

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var baseSequenceNumber: UInt16
    /// In 64 ms units, −2^23 ..< 2^23.
    public var referenceTime: Int32
    /// Counts the feedback packets a receiver sends, so the sender can tell one went missing.
    public var feedbackPacketCount: UInt8
    /// One entry per sequence number from `baseSequenceNumber` on: nil for a
    /// packet not received, else its receive delta in 250 µs ticks.
    public var receiveDeltas: [Int16?]

    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, referenceTime: Int32,
        feedbackPacketCount: UInt8, receiveDeltas: [Int16?]
    ) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.receiveDeltas = receiveDeltas
    }

    /// Each packet's sequence number and arrival, in order.
    public var packetResults: [PacketResult] {
        results(referenceMicroseconds: Int64(referenceTime) * Self.referenceTickMicroseconds)
    }

    /// The results with arrivals counted from `referenceMicroseconds`, the
    /// reference time once unwrapped across feedbacks.
    func results(referenceMicroseconds: Int64) -> [PacketResult] {
        var time = referenceMicroseconds
        return receiveDeltas.enumerated().map { index, delta in
            let sequenceNumber = baseSequenceNumber &+ UInt16(truncatingIfNeeded: index)
            guard let delta else { return PacketResult(sequenceNumber: sequenceNumber, arrival: nil) }
            time += Int64(delta) * Self.deltaTickMicroseconds
            return PacketResult(sequenceNumber: sequenceNumber, arrival: .microseconds(time))
        }
    }

    private var symbols: [TransportFeedbackChunk.Symbol] { receiveDeltas.map(TransportFeedbackChunk.Symbol.init) }

    private var unpaddedSize: Int {
        let symbols = self.symbols
        return FeedbackHeader.size + Self.fixedFieldsSize + 2 * TransportFeedbackChunk.encode(symbols).count
            + symbols.reduce(0) { $0 + $1.deltaSize }
    }

    public var size: Int { (unpaddedSize + 3) / 4 * 4 }

    public var destinationSSRCs: [UInt32] { [mediaSSRC] }

    public func marshal(into out: inout [UInt8]) throws(RTCPError) {
        guard receiveDeltas.count <= Self.maxStatusCount else {
            throw .tooManyItems(count: receiveDeltas.count, limit: Self.maxStatusCount)
        }
        let symbols = self.symbols
        let chunks = TransportFeedbackChunk.encode(symbols)
        let start = out.count
        let padding = size - unpaddedSize
        FeedbackHeader.marshal(
            format: FeedbackHeader.transportCCFormat, packetType: RTCPPacketType.transportFeedback, packetSize: size,
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, into: &out)
        out.appendUInt16(baseSequenceNumber)
        out.appendUInt16(UInt16(receiveDeltas.count))
        out.appendUInt24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF)
        out.append(feedbackPacketCount)
        for chunk in chunks { out.appendUInt16(chunk) }
        for delta in receiveDeltas {
            guard let delta else { continue }
            if TransportFeedbackChunk.Symbol(delta: delta) == .smallDelta {
                out.append(UInt8(delta))
            } else {
                out.appendUInt16(UInt16(bitPattern: delta))
            }
        }
        if padding > 0 {
            out[start] |= RTCPHeader.paddingBit
            out.append(contentsOf: repeatElement(0, count: padding - 1))
            out.append(UInt8(padding))
        }
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> TransportFeedback {
        let header = try RTCPHeader.parse(bytes)
        guard header.packetType == RTCPPacketType.transportFeedback else {
            throw .wrongPacketType(expected: RTCPPacketType.transportFeedback, got: header.packetType)
        }
        guard header.count == FeedbackHeader.transportCCFormat else {
            throw .wrongPacketType(expected: FeedbackHeader.transportCCFormat, got: header.count)
        }
        guard header.packetSize == bytes.count else {
            throw .lengthMismatch(declared: header.packetSize, available: bytes.count)
        }
        let minimum = FeedbackHeader.size + fixedFieldsSize
        guard bytes.count >= minimum else { throw .tooShort(needed: minimum, got: bytes.count) }
        var end = bytes.count
        if header.padding {
            // libwebrtc pads to the word with 1–3 bytes, not the multiple of 4 RFC 3550 asks for.
            let count = Int(bytes[end - 1])
            guard count > 0, count <= end - minimum else { throw .invalidPadding(count: count) }
            end -= count
        }
        let statusCount = Int(bytes.uint16(at: FeedbackHeader.size + 2))
        var offset = minimum
        var symbols: [TransportFeedbackChunk.Symbol] = []
        while symbols.count < statusCount {
            guard offset + 2 <= end else {
                throw .statusCountExceedsChunks(claimed: statusCount, described: symbols.count)
            }
            try TransportFeedbackChunk.decode(bytes.uint16(at: offset), into: &symbols, limit: statusCount)
            offset += 2
        }
        var deltas: [Int16?] = []
        deltas.reserveCapacity(symbols.count)
        for symbol in symbols {
            guard offset + symbol.deltaSize <= end else {
                throw .tooShort(needed: offset + symbol.deltaSize, got: end)
            }
            switch symbol {
            case .notReceived: deltas.append(nil)
            case .smallDelta: deltas.append(Int16(bytes[offset]))
            case .largeDelta: deltas.append(Int16(bitPattern: bytes.uint16(at: offset)))
            }
            offset += symbol.deltaSize
        }
        let fields = FeedbackHeader.size
        return TransportFeedback(
            senderSSRC: bytes.uint32(at: RTCPHeader.size), mediaSSRC: bytes.uint32(at: RTCPHeader.size + 4),
            baseSequenceNumber: bytes.uint16(at: fields),
            referenceTime: Int32(bitPattern: bytes.uint24(at: fields + 4) << 8) >> 8,
            feedbackPacketCount: bytes[fields + 7], receiveDeltas: deltas)
    }
}
