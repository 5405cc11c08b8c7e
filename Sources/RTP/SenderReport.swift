/// Sender report (SR), RFC 3550 §6.4.1.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|    RC   |   PT=SR=200   |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         SSRC of sender                        |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |              NTP timestamp, most significant word             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |             NTP timestamp, least significant word             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         RTP timestamp                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     sender's packet count                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      sender's octet count                     |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                  report blocks (24 bytes each)                |
/// ```
public struct SenderReport: RTCPMessage {
    static let senderInfoSize = 20

    public var ssrc: UInt32
    /// 64-bit NTP time: seconds since 1900 in the high word, fraction in the low.
    public var ntpTime: UInt64
    public var rtpTime: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reports: [ReceptionReport]

    public init(
        ssrc: UInt32, ntpTime: UInt64, rtpTime: UInt32, packetCount: UInt32, octetCount: UInt32,
        reports: [ReceptionReport] = []
    ) {
        self.ssrc = ssrc
        self.ntpTime = ntpTime
        self.rtpTime = rtpTime
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
    }

    /// The middle 32 bits of the NTP time, which a receiver echoes as LSR.
    public var compactNTPTime: UInt32 { UInt32(truncatingIfNeeded: ntpTime >> 16) }

    public var size: Int { RTCPHeader.size + 4 + Self.senderInfoSize + ReceptionReport.size * reports.count }

    public var destinationSSRCs: [UInt32] { reports.map(\.ssrc) }

    public func marshal(into out: inout [UInt8]) throws(RTCPError) {
        guard reports.count <= RTCPHeader.maxCount else {
            throw .tooManyItems(count: reports.count, limit: RTCPHeader.maxCount)
        }
        RTCPHeader.marshal(count: UInt8(reports.count), packetType: RTCPPacketType.senderReport, packetSize: size, into: &out)
        out.appendUInt32(ssrc)
        out.appendUInt32(UInt32(truncatingIfNeeded: ntpTime >> 32))
        out.appendUInt32(UInt32(truncatingIfNeeded: ntpTime))
        out.appendUInt32(rtpTime)
        out.appendUInt32(packetCount)
        out.appendUInt32(octetCount)
        for report in reports { report.marshal(into: &out) }
    }

    /// Profile-specific extensions after the report blocks are ignored.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> SenderReport {
        let (header, body) = try RTCPHeader.parseBody(bytes, packetType: RTCPPacketType.senderReport)
        let fixed = 4 + senderInfoSize
        guard body.count >= fixed else { throw .tooShort(needed: RTCPHeader.size + fixed, got: bytes.count) }
        let reports = try ReceptionReport.parseList(
            UnsafeRawBufferPointer(rebasing: body[fixed...]), count: Int(header.count))
        return SenderReport(
            ssrc: body.uint32(at: 0),
            ntpTime: UInt64(body.uint32(at: 4)) << 32 | UInt64(body.uint32(at: 8)),
            rtpTime: body.uint32(at: 12), packetCount: body.uint32(at: 16), octetCount: body.uint32(at: 20),
            reports: reports)
    }
}
