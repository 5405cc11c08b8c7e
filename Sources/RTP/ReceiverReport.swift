/// Receiver report (RR), RFC 3550 §6.4.2.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|    RC   |   PT=RR=201   |             length            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     SSRC of packet sender                     |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                  report blocks (24 bytes each)                |
/// ```
public struct ReceiverReport: RTCPMessage {
    public var ssrc: UInt32
    public var reports: [ReceptionReport]

    public init(ssrc: UInt32, reports: [ReceptionReport] = []) {
        self.ssrc = ssrc
        self.reports = reports
    }

    public var size: Int { RTCPHeader.size + 4 + ReceptionReport.size * reports.count }

    public var destinationSSRCs: [UInt32] { reports.map(\.ssrc) }

    public func marshal(into out: inout [UInt8]) throws(RTCPError) {
        guard reports.count <= RTCPHeader.maxCount else {
            throw .tooManyItems(count: reports.count, limit: RTCPHeader.maxCount)
        }
        RTCPHeader.marshal(count: UInt8(reports.count), packetType: RTCPPacketType.receiverReport, packetSize: size, into: &out)
        out.appendUInt32(ssrc)
        for report in reports { report.marshal(into: &out) }
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> ReceiverReport {
        let (header, body) = try RTCPHeader.parseBody(bytes, packetType: RTCPPacketType.receiverReport)
        guard body.count >= 4 else { throw .tooShort(needed: RTCPHeader.size + 4, got: bytes.count) }
        let reports = try ReceptionReport.parseList(UnsafeRawBufferPointer(rebasing: body[4...]), count: Int(header.count))
        return ReceiverReport(ssrc: body.uint32(at: 0), reports: reports)
    }
}
