import Media

/// The abs-send-time header extension (webrtc.org, as Chromium sends it):
/// when each packet left the sender, 24 bits of 6.18 fixed-point seconds,
/// in an RFC 8285 one-byte-header extension. A receiver compares these
/// with arrival times to see queueing on the path alone, without the
/// encoder's and the pacer's own delays.
public enum AbsoluteSendTime {
    public static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    public static let extensionID: UInt8 = 3
    /// The value wraps every 64 s.
    static let wrap = 1 << 24

    /// The element with zeroed data, stamped when the packet leaves.
    public static let placeholder = HeaderExtensionBlock.Element(id: extensionID, data: [0, 0, 0])

    public static func value(at time: Instant) -> UInt32 {
        UInt32(truncatingIfNeeded: (time.nanoseconds << 18) / 1_000_000_000) & 0xFF_FFFF
    }

    /// Writes the send time into the packet's element `extensionID`; does
    /// nothing to a packet without one.
    public static func stamp(_ packet: UnsafeMutableRawBufferPointer, at time: Instant, extensionID id: UInt8 = extensionID) {
        guard let data = HeaderExtensionBlock.locate(id: id, in: UnsafeRawBufferPointer(packet)), data.count == 3 else { return }
        let v = value(at: time)
        packet[data.lowerBound] = UInt8(v >> 16 & 0xFF)
        packet[data.lowerBound + 1] = UInt8(v >> 8 & 0xFF)
        packet[data.lowerBound + 2] = UInt8(v & 0xFF)
    }

    /// Reads the send time from a packet's one-byte-header extension, if it has one.
    public static func read(_ packet: UnsafeRawBufferPointer, extensionID id: UInt8 = extensionID) -> UInt32? {
        guard let data = HeaderExtensionBlock.locate(id: id, in: packet), data.count == 3 else { return nil }
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
