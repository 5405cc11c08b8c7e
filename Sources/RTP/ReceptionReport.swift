/// One report block of an SR or RR, RFC 3550 §6.4.1.
///
/// ```
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                 SSRC_1 (SSRC of first source)                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | fraction lost |       cumulative number of packets lost       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           extended highest sequence number received           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      interarrival jitter                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         last SR (LSR)                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                   delay since last SR (DLSR)                  |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// ```
public struct ReceptionReport: Equatable, Sendable {
    public static let size = 24
    /// The cumulative loss is a 24-bit signed field (duplicates can make it negative).
    static let totalLostMax: Int32 = 0x7F_FFFF
    static let totalLostMin: Int32 = -0x80_0000

    public var ssrc: UInt32
    /// Fraction lost since the last report, in 1/256ths.
    public var fractionLost: UInt8
    /// Cumulative packets lost, clamped to 24 bits when written.
    public var totalLost: Int32
    /// Extended highest sequence number: cycles in the high 16 bits.
    public var highestSequence: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the NTP time of the last SR received, 0 if none.
    public var lastSR: UInt32
    /// Delay since that SR, in 1/65536 seconds.
    public var delaySinceLastSR: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8 = 0, totalLost: Int32 = 0, highestSequence: UInt32 = 0,
        jitter: UInt32 = 0, lastSR: UInt32 = 0, delaySinceLastSR: UInt32 = 0
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.totalLost = totalLost
        self.highestSequence = highestSequence
        self.jitter = jitter
        self.lastSR = lastSR
        self.delaySinceLastSR = delaySinceLastSR
    }

    /// The fraction lost as a number from 0 to 1.
    public var lossRatio: Double { Double(fractionLost) / 256 }

    func marshal(into out: inout [UInt8]) {
        out.appendUInt32(ssrc)
        out.append(fractionLost)
        let clamped = min(max(totalLost, Self.totalLostMin), Self.totalLostMax)
        out.appendUInt24(UInt32(bitPattern: clamped) & 0xFF_FFFF)
        out.appendUInt32(highestSequence)
        out.appendUInt32(jitter)
        out.appendUInt32(lastSR)
        out.appendUInt32(delaySinceLastSR)
    }

    /// `bytes` holds at least `size` bytes.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> ReceptionReport {
        let raw = bytes.uint24(at: 5)
        // Sign-extend the 24-bit field.
        let totalLost = Int32(bitPattern: raw << 8) >> 8
        return ReceptionReport(
            ssrc: bytes.uint32(at: 0), fractionLost: bytes[4], totalLost: totalLost,
            highestSequence: bytes.uint32(at: 8), jitter: bytes.uint32(at: 12),
            lastSR: bytes.uint32(at: 16), delaySinceLastSR: bytes.uint32(at: 20))
    }

    static func parseList(_ bytes: UnsafeRawBufferPointer, count: Int) throws(RTCPError) -> [ReceptionReport] {
        let needed = count * size
        guard bytes.count >= needed else { throw .tooShort(needed: needed, got: bytes.count) }
        return (0..<count).map { parse(UnsafeRawBufferPointer(rebasing: bytes[$0 * size..<($0 + 1) * size])) }
    }
}
