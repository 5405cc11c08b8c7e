import Media

/// The abs-send-time header extension (webrtc.org, as Chromium sends it):
/// when each packet left the sender, 24 bits of 6.18 fixed-point seconds,
/// in an RFC 8285 one-byte-header extension. A receiver compares these
/// with arrival times to see queueing on the path alone, without the
/// encoder's and the pacer's own delays.
public enum AbsoluteSendTime {
    public static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    public static let extensionID: UInt8 = 3
    /// Extension header (4 bytes) plus one element: ID/length byte and 3 data bytes.
    public static let extensionSize = 8
    /// The value wraps every 64 s.
    static let wrap = 1 << 24

    /// Appends an extension block holding an abs-send-time element, to be
    /// stamped when the packet leaves; set the header's X bit with it.
    public static func appendPlaceholder(to packet: inout [UInt8]) {
        packet[0] |= RTPHeader.extensionBit
        packet.append(contentsOf: [0xBE, 0xDE, 0x00, 0x01, extensionID << 4 | 2, 0, 0, 0])
    }

    /// The element for a `HeaderExtensionBlock` shared with other
    /// extensions; put it first, where `stamp` looks for it.
    public static let placeholder = HeaderExtensionBlock.Element(id: extensionID, data: [0, 0, 0])

    public static func value(at time: Instant) -> UInt32 {
        UInt32(truncatingIfNeeded: (time.nanoseconds << 18) / 1_000_000_000) & 0xFF_FFFF
    }

    /// Writes the send time into a packet that carries the placeholder right
    /// after a 12-byte header; does nothing to a packet without it (one whose
    /// block is empty holds payload where the element would be).
    public static func stamp(_ packet: UnsafeMutableRawBufferPointer, at time: Instant) {
        let element = RTPHeader.fixedSize + 4
        guard packet.count > element + 3, packet[0] & RTPHeader.extensionBit != 0, packet[0] & RTPHeader.csrcCountMask == 0,
              packet[RTPHeader.fixedSize] == 0xBE, packet[RTPHeader.fixedSize + 1] == 0xDE,
              packet[RTPHeader.fixedSize + 2] | packet[RTPHeader.fixedSize + 3] != 0,
              packet[element] == extensionID << 4 | 2 else { return }
        let v = value(at: time)
        packet[element + 1] = UInt8(v >> 16 & 0xFF)
        packet[element + 2] = UInt8(v >> 8 & 0xFF)
        packet[element + 3] = UInt8(v & 0xFF)
    }

    /// Reads the send time from a packet's one-byte-header extension, if it has one.
    public static func read(_ packet: UnsafeRawBufferPointer) -> UInt32? {
        guard let data = HeaderExtensionBlock.locate(id: extensionID, in: packet), data.count == 3 else { return nil }
        return packet.uint24(at: data.lowerBound)
    }

    /// Milliseconds from `earlier` to `later`, across the 64 s wrap.
    public static func milliseconds(from earlier: UInt32, to later: UInt32) -> Double {
        var d = Int(later) - Int(earlier)
        if d > wrap / 2 { d -= wrap }
        if d < -wrap / 2 { d += wrap }
        return Double(d) * 1000 / Double(1 << 18)
    }
}
