/// RTX (RFC 4588 §4): a lost packet sent again on a stream of its own — its
/// own SSRC, payload type and sequence numbers — with the original sequence
/// number (OSN) ahead of the original payload. A retransmission is then a new
/// packet under a new (SSRC, sequence number), with fresh header extensions
/// (its own transport-wide number), rather than the same bytes twice.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |    RTP header of the RTX stream (extensions as the original's)  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            OSN                |                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
/// |                  original RTP payload                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public enum RetransmissionPacket {
    public static let originalSequenceSize = 2

    /// Appends to `out` the RTX packet that carries `original` (plain RTP) on
    /// the RTX stream: marker and timestamp kept, any header extension block
    /// copied for the sender to stamp afresh, padding left out. Nil for a
    /// packet with no payload (padding only: nothing to repair).
    public static func wrap(
        _ original: UnsafeRawBufferPointer, payloadType: UInt8, ssrc: UInt32, sequenceNumber: UInt16, into out: inout [UInt8]
    ) -> UInt16? {
        guard let packet = try? RTPPacket.parse(original), !packet.payloadRange.isEmpty else { return nil }
        let headerEnd = packet.payloadRange.lowerBound
        let start = out.count
        out.append(contentsOf: original[0..<headerEnd])
        out[start] &= ~RTPHeader.paddingBit
        out[start + 1] = (original[1] & RTPHeader.markerBit) | (payloadType & RTPHeader.payloadTypeMask)
        out.withUnsafeMutableBytes { bytes in
            bytes.storeUInt16(sequenceNumber, at: start + 2)
            bytes.storeUInt32(ssrc, at: start + 8)
        }
        out.appendUInt16(packet.header.sequenceNumber)
        out.append(contentsOf: original[packet.payloadRange])
        return packet.header.sequenceNumber
    }

    /// The original packet an RTX packet carries, as it was first sent on the
    /// media stream `ssrc` with `payloadType`; its header extensions are the
    /// retransmission's. Throws for an RTX packet too short for its OSN.
    public static func unwrap(_ rtx: UnsafeRawBufferPointer, payloadType: UInt8, ssrc: UInt32) throws(RTPError) -> [UInt8] {
        let packet = try RTPPacket.parse(rtx)
        let payload = packet.payloadRange
        guard payload.count >= originalSequenceSize else {
            throw .tooShort(needed: payload.lowerBound + originalSequenceSize, got: payload.upperBound)
        }
        var out = Array(rtx[0..<payload.lowerBound])
        out[0] &= ~RTPHeader.paddingBit
        out[1] = (rtx[1] & RTPHeader.markerBit) | (payloadType & RTPHeader.payloadTypeMask)
        out[2] = rtx[payload.lowerBound]
        out[3] = rtx[payload.lowerBound + 1]
        out.withUnsafeMutableBytes { $0.storeUInt32(ssrc, at: 8) }
        out.append(contentsOf: rtx[(payload.lowerBound + originalSequenceSize)..<payload.upperBound])
        return out
    }
}
