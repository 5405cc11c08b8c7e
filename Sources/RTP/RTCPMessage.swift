/// The surface every RTCP packet type shares, as in pion/rtcp.
public protocol RTCPMessage: Equatable, Sendable {
    /// Reads one packet that fills `bytes` exactly, header included.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> Self
    /// Appends the packet, header included.
    func marshal(into out: inout [UInt8]) throws(RTCPError)
    /// Bytes `marshal` appends.
    var size: Int { get }
    /// The SSRCs the packet is about: the media sources reported on or asked for.
    var destinationSSRCs: [UInt32] { get }
}

extension RTCPMessage {
    public static func parse(_ bytes: [UInt8]) throws(RTCPError) -> Self {
        try bytes.withUnsafeBytes { raw in Result { () throws(RTCPError) in try parse(raw) } }.get()
    }

    public func marshal() throws(RTCPError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(size)
        try marshal(into: &out)
        return out
    }
}
