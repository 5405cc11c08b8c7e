/// One fuzz target: what it feeds the input to, the longest input worth
/// trying, and seeds that start it inside the protocol.
struct FuzzTarget {
    let name: String
    /// libFuzzer's `-max_len`: long enough for the largest input the code takes.
    let maxLength: Int
    let run: (UnsafeRawBufferPointer) -> Void
    let seeds: () -> [[UInt8]]

    static let all: [FuzzTarget] = [
        // Text from the call client or the person at the terminal.
        FuzzTarget(name: "control", maxLength: ControlDecoder.maxLineLength + 4096, run: TextTargets.control, seeds: TextSeeds.control),
        FuzzTarget(name: "stdin", maxLength: ControlDecoder.maxLineLength + 4096, run: TextTargets.stdin, seeds: TextSeeds.stdin),
        FuzzTarget(name: "address", maxLength: 256, run: TextTargets.address, seeds: TextSeeds.address),
        FuzzTarget(name: "key", maxLength: SRTPKey.maxFileSize, run: TextTargets.key, seeds: TextSeeds.key),
        // Datagrams from the network.
        FuzzTarget(name: "rtp", maxLength: 2048, run: PacketTargets.rtp, seeds: PacketSeeds.rtp),
        FuzzTarget(name: "rtcp", maxLength: 2048, run: PacketTargets.rtcp, seeds: PacketSeeds.rtcp),
        FuzzTarget(name: "twcc", maxLength: 2048, run: PacketTargets.twcc, seeds: PacketSeeds.twcc),
        FuzzTarget(name: "depacketize", maxLength: 32_768, run: PacketTargets.depacketize, seeds: PacketSeeds.depacketize),
        FuzzTarget(name: "srtp-sender", maxLength: 8192, run: SRTPTargets.sender, seeds: SRTPSeeds.sender),
        FuzzTarget(name: "srtp-receiver", maxLength: 8192, run: SRTPTargets.receiver, seeds: SRTPSeeds.receiver),
        // What the desktop hands over: portal replies and PipeWire cursor metadata.
        FuzzTarget(name: "dbus", maxLength: 16_384, run: DesktopTargets.dbus, seeds: DesktopSeeds.dbus),
        FuzzTarget(name: "cursor", maxLength: PipeWireCursor.metaBytes(side: PipeWireCursor.maxSide) + 64, run: DesktopTargets.cursor,
                   seeds: DesktopSeeds.cursor),
    ]

    static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}

/// Splits an input into records of a 16-bit big-endian length and that many
/// bytes, so one input can carry a sequence of datagrams.
struct FuzzRecords: Sequence, IteratorProtocol {
    private var rest: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) {
        rest = bytes
    }

    mutating func next() -> UnsafeRawBufferPointer? {
        guard rest.count >= 2 else { return nil }
        let length = Swift.min(Int(rest[0]) << 8 | Int(rest[1]), rest.count - 2)
        defer { rest = UnsafeRawBufferPointer(rebasing: rest[(2 + length)...]) }
        return UnsafeRawBufferPointer(rebasing: rest[2..<(2 + length)])
    }

    /// The records' bytes, as a seed.
    static func join(_ records: [[UInt8]]) -> [UInt8] {
        records.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xFF)] + $0 }
    }
}
