import Decoders
import Media
import RTP
import SRTP
import Transport

/// One SSRC arriving: its statistics, depacketizer and decoder. A new SSRC
/// gets a new one of each, as a new transceiver does in a browser.
struct IncomingStream {
    let ssrc: UInt32
    var statistics: ReceptionStatistics
    var depacketizer: StreamDepacketizer
    var reorder = ReorderBuffer()
    let decoder: StreamDecoder
    var needsKeyframe = true
    /// The media's payload type, which an RTX packet's original had.
    var payloadType: UInt8?
    var decoded = 0
    private var unwrapper = SequenceUnwrapper()
    private var highest: Int64?
    /// Sequence numbers already asked for, so each gap is NACKed once.
    private var nacked: Set<Int64> = []

    /// A gap wider than this is not NACKed packet by packet: a keyframe is cheaper.
    static let maxNACKGap = 64

    init(ssrc: UInt32, codec: ReceivedCodec = .h264) throws {
        self.ssrc = ssrc
        statistics = ReceptionStatistics(ssrc: ssrc)
        depacketizer = StreamDepacketizer(codec)
        decoder = try StreamDecoder(codec)
    }

    /// Counts the packet; returns sequence numbers found missing before it.
    mutating func record(_ header: RTPHeader, arrival: Instant) -> [UInt16] {
        statistics.record(sequenceNumber: header.sequenceNumber, rtpTimestamp: header.timestamp, arrival: arrival)
        let extended = unwrapper.unwrap(header.sequenceNumber)
        defer { highest = max(highest ?? extended, extended) }
        guard let top = highest, extended > top + 1, extended - top - 1 <= IncomingStream.maxNACKGap else { return [] }
        var lost: [UInt16] = []
        for s in (top + 1)..<extended where !nacked.contains(s) {
            nacked.insert(s)
            lost.append(UInt16(truncatingIfNeeded: s))
        }
        if nacked.count > 4 * IncomingStream.maxNACKGap {
            nacked = nacked.filter { $0 > extended - Int64(IncomingStream.maxNACKGap) }
        }
        return lost
    }
}
