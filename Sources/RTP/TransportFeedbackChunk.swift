/// The packet status chunks of transport-wide feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.3–3.1.4), each
/// 16 bits.
///
/// ```
/// run length:       |T=0| S |        run length (13 bits)         |
/// 1-bit vector:     |T=1|S=0|   14 symbols: 0 lost, 1 small delta   |
/// 2-bit vector:     |T=1|S=1|   7 symbols of 2 bits (see Symbol)    |
/// ```
enum TransportFeedbackChunk {
    /// What the receiver says of one packet, and so the size of its receive delta.
    enum Symbol: UInt8 {
        case notReceived = 0
        /// A delta of 0…255 ticks, in one byte.
        case smallDelta = 1
        /// A negative delta or one past 255 ticks, in two signed bytes.
        case largeDelta = 2

        init(delta: Int16?) {
            guard let delta else {
                self = .notReceived
                return
            }
            self = (0...255).contains(delta) ? .smallDelta : .largeDelta
        }

        var deltaSize: Int { Int(rawValue) }
    }

    static let vectorBit: UInt16 = 0x8000
    static let twoBitVectorBit: UInt16 = 0x4000
    static let maxRunLength = 0x1FFF
    static let oneBitCapacity = 14
    static let twoBitCapacity = 7

    /// Appends the symbols `chunk` holds, stopping at `limit` in all: the last
    /// chunk of a packet may describe more than the status count, and those
    /// extra symbols mean nothing.
    static func decode(_ chunk: UInt16, into symbols: inout [Symbol], limit: Int) throws(RTCPError) {
        let room = limit - symbols.count
        if chunk & vectorBit == 0 {
            guard let symbol = Symbol(rawValue: UInt8(chunk >> 13 & 0x3)) else { throw .reservedPacketStatus }
            symbols.append(contentsOf: repeatElement(symbol, count: min(room, Int(chunk) & maxRunLength)))
        } else if chunk & twoBitVectorBit == 0 {
            for i in 0..<min(room, oneBitCapacity) {
                symbols.append(chunk >> (13 - i) & 1 == 0 ? .notReceived : .smallDelta)
            }
        } else {
            for i in 0..<min(room, twoBitCapacity) {
                guard let symbol = Symbol(rawValue: UInt8(chunk >> (12 - 2 * i) & 0x3)) else { throw .reservedPacketStatus }
                symbols.append(symbol)
            }
        }
    }

    /// The fewest chunks a greedy pass finds for `symbols`: a run when the
    /// same symbol repeats at least as long as a vector would reach, else a
    /// 1-bit vector where no large delta is near, else a 2-bit vector.
    static func encode(_ symbols: [Symbol]) -> [UInt16] {
        var chunks: [UInt16] = []
        var i = 0
        while i < symbols.count {
            let rest = symbols[i...]
            let run = rest.prefix(maxRunLength).prefix { $0 == symbols[i] }.count
            let oneBitReach = rest.prefix(oneBitCapacity).prefix { $0 != .largeDelta }.count
            if run == rest.count || run >= oneBitCapacity || (run >= twoBitCapacity && oneBitReach < oneBitCapacity) {
                chunks.append(UInt16(symbols[i].rawValue) << 13 | UInt16(run))
                i += run
            } else if oneBitReach == min(rest.count, oneBitCapacity) {
                chunks.append(vector(rest.prefix(oneBitCapacity), bits: 1))
                i += oneBitCapacity
            } else {
                chunks.append(vector(rest.prefix(twoBitCapacity), bits: 2))
                i += twoBitCapacity
            }
        }
        return chunks
    }

    /// Symbols past the end of the packet's statuses are written as 0.
    private static func vector(_ symbols: ArraySlice<Symbol>, bits: Int) -> UInt16 {
        var chunk = vectorBit | (bits == 2 ? twoBitVectorBit : 0)
        for (i, symbol) in symbols.enumerated() {
            chunk |= UInt16(symbol.rawValue) << (14 - bits * (i + 1))
        }
        return chunk
    }
}
