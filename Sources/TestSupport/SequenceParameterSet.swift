/// The parts of an H.264 SPS (ITU-T H.264 §7.3.2.1.1) that say what a
/// receiver must decode: profile, level and picture size. Read from the
/// bytes the encoder really produced, to check the level they claim.
public struct SequenceParameterSet: Sendable, Equatable {
    public let profileIDC: Int
    public let levelIDC: Int
    public let widthInMacroblocks: Int
    public let heightInMacroblocks: Int
    public let width: Int
    public let height: Int

    public struct Malformed: Error, Equatable, Sendable {
        public let reason: String
    }

    /// Profiles whose SPS carries chroma format and bit depth fields.
    static let highProfiles: Set<Int> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    public var macroblocks: Int { widthInMacroblocks * heightInMacroblocks }

    /// `nal` is one NAL unit, header byte included, start code excluded.
    public init(nal: [UInt8]) throws(Malformed) {
        guard nal.count > 4, nal[0] & 0x1F == 7 else { throw Malformed(reason: "not an SPS NAL unit") }
        var bits = ExpGolombReader(SequenceParameterSet.removingEmulationPrevention(Array(nal.dropFirst())))
        profileIDC = try bits.bits(8)
        _ = try bits.bits(8)
        levelIDC = try bits.bits(8)
        _ = try bits.unsigned()
        var chromaFormat = 1
        if SequenceParameterSet.highProfiles.contains(profileIDC) {
            chromaFormat = try bits.unsigned()
            if chromaFormat == 3 { _ = try bits.bits(1) }
            _ = try bits.unsigned()
            _ = try bits.unsigned()
            _ = try bits.bits(1)
            guard try bits.bits(1) == 0 else { throw Malformed(reason: "scaling matrices are not read") }
        }
        _ = try bits.unsigned()
        let pocType = try bits.unsigned()
        if pocType == 0 {
            _ = try bits.unsigned()
        } else if pocType == 1 {
            _ = try bits.bits(1)
            _ = try bits.signed()
            _ = try bits.signed()
            for _ in 0..<(try bits.unsigned()) { _ = try bits.signed() }
        }
        _ = try bits.unsigned()
        _ = try bits.bits(1)
        widthInMacroblocks = try bits.unsigned() + 1
        let mapUnits = try bits.unsigned() + 1
        let frameMBsOnly = try bits.bits(1) == 1
        heightInMacroblocks = mapUnits * (frameMBsOnly ? 1 : 2)
        if !frameMBsOnly { _ = try bits.bits(1) }
        _ = try bits.bits(1)
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if try bits.bits(1) == 1 {
            crop = (try bits.unsigned(), try bits.unsigned(), try bits.unsigned(), try bits.unsigned())
        }
        // Crop units for 4:2:0: two pixels across, two rows down (frame coding).
        let cropX = chromaFormat == 0 || chromaFormat == 3 ? 1 : 2
        let cropY = (chromaFormat == 1 ? 2 : 1) * (frameMBsOnly ? 1 : 2)
        width = widthInMacroblocks * 16 - cropX * (crop.left + crop.right)
        height = heightInMacroblocks * 16 - cropY * (crop.top + crop.bottom)
    }

    /// Finds the first SPS in an Annex-B access unit.
    public static func find(inAnnexB bytes: [UInt8]) -> SequenceParameterSet? {
        var i = 0
        var starts: [Int] = []
        while i + 3 <= bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        for (n, start) in starts.enumerated() where start < bytes.count && bytes[start] & 0x1F == 7 {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            while end > start && bytes[end - 1] == 0 { end -= 1 }
            return try? SequenceParameterSet(nal: Array(bytes[start..<end]))
        }
        return nil
    }

    /// 00 00 03 in a NAL unit's payload stands for 00 00 (§7.4.1).
    static func removingEmulationPrevention(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var zeros = 0
        for b in bytes {
            if zeros >= 2 && b == 3 {
                zeros = 0
                continue
            }
            zeros = b == 0 ? zeros + 1 : 0
            out.append(b)
        }
        return out
    }
}

/// Reads bits, and the Exp-Golomb codes of §9.1, most significant first.
struct ExpGolombReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func bits(_ count: Int) throws(SequenceParameterSet.Malformed) -> Int {
        var value = 0
        for _ in 0..<count {
            guard position / 8 < bytes.count else { throw .init(reason: "SPS ends early") }
            value = value << 1 | Int(bytes[position / 8] >> (7 - UInt8(position % 8)) & 1)
            position += 1
        }
        return value
    }

    mutating func unsigned() throws(SequenceParameterSet.Malformed) -> Int {
        var zeros = 0
        while try bits(1) == 0 {
            zeros += 1
            guard zeros < 32 else { throw .init(reason: "Exp-Golomb code too long") }
        }
        return (1 << zeros) - 1 + (try bits(zeros))
    }

    mutating func signed() throws(SequenceParameterSet.Malformed) -> Int {
        let k = try unsigned()
        return k % 2 == 1 ? (k + 1) / 2 : -(k / 2)
    }
}
