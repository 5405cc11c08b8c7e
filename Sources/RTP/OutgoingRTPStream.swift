import Media

/// One outgoing SSRC's numbering (RFC 3550 §5.1): sequence numbers from a
/// random start, one per packet, and 90 kHz timestamps from a random base.
/// Whoever holds the value is the only one that numbers packets for it.
public struct OutgoingRTPStream: Sendable {
    /// RFC 3550 §5.1: the padding count is one octet.
    public static let maxPadding = 255

    public let ssrc: UInt32
    public let payloadType: UInt8
    public let timestampBase: UInt32
    public let extensions: HeaderExtensionMap
    public private(set) var nextSequence: UInt16

    public init(
        ssrc: UInt32, payloadType: UInt8, firstSequence: UInt16, timestampBase: UInt32,
        extensions: HeaderExtensionMap = .standard
    ) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        nextSequence = firstSequence
        self.timestampBase = timestampBase
        self.extensions = extensions
    }

    /// A new stream with random numbering, as RFC 3550 asks.
    public static func random(ssrc: UInt32, payloadType: UInt8, extensions: HeaderExtensionMap = .standard) -> OutgoingRTPStream {
        var random = SystemRandomNumberGenerator()
        return OutgoingRTPStream(ssrc: ssrc, payloadType: payloadType,
                                 firstSequence: UInt16.random(in: 0...UInt16.max, using: &random),
                                 timestampBase: UInt32.random(in: 0...UInt32.max, using: &random), extensions: extensions)
    }

    /// 90 kHz media time from the capture time, so timestamps follow the screen, not the encoder.
    public func timestamp(for captureTime: Instant) -> UInt32 {
        timestampBase &+ UInt32(truncatingIfNeeded: captureTime.nanoseconds / 1_000_000 * 90)
    }

    /// Starts the next packet in `out`: the fixed header and the extension
    /// block with zeroed data (stamped when the packet leaves). Returns the
    /// packet's sequence number.
    public mutating func startPacket(marker: Bool, timestamp: UInt32, into out: inout [UInt8]) -> UInt16 {
        let sequence = nextSequence
        nextSequence &+= 1
        RTPHeader(marker: marker, payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc)
            .marshal(into: &out)
        extensions.appendPlaceholder(to: &out)
        return sequence
    }

    /// The largest padding-only packet: header, extension block and 255 bytes of padding.
    public var paddingPacketSize: Int { RTPHeader.fixedSize + extensions.size + Self.maxPadding }

    /// Writes the next packet as padding only (RFC 3550 §5.1: P set, no
    /// payload, the last byte counting the padding): `padding` bytes of it
    /// (1–255; by default `paddingPacketSize` in all, for probing the path),
    /// under a fresh sequence number, which it returns.
    public mutating func paddingPacket(timestamp: UInt32, padding: Int = OutgoingRTPStream.maxPadding, into out: inout [UInt8]) -> UInt16 {
        let padding = min(max(padding, 1), Self.maxPadding)
        let sequence = nextSequence
        nextSequence &+= 1
        RTPHeader(padding: true, payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc)
            .marshal(into: &out)
        extensions.appendPlaceholder(to: &out)
        out.append(contentsOf: repeatElement(0, count: padding - 1))
        out.append(UInt8(padding))
        return sequence
    }
}
