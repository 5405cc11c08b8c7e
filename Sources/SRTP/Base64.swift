/// Standard base64 (RFC 4648 §4) with padding, as SDES `inline:` keys use.
/// Hand-written because the module avoids Foundation on the media path.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let padding = UInt8(ascii: "=")

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for position in 0..<4 {
                if position <= count {
                    out.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)])
                } else {
                    out.append(padding)
                }
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for anything that is not whole, padded base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var index = 0
        while index < chars.count {
            var group: UInt32 = 0
            var padded = 0
            for position in 0..<4 {
                let char = chars[index + position]
                if char == padding, index + 4 == chars.count, position >= 2 {
                    padded += 1
                    group <<= 6
                    continue
                }
                guard padded == 0, let value = sextet(char) else { return nil }
                group = group << 6 | UInt32(value)
            }
            out.append(UInt8(truncatingIfNeeded: group >> 16))
            if padded < 2 { out.append(UInt8(truncatingIfNeeded: group >> 8)) }
            if padded < 1 { out.append(UInt8(truncatingIfNeeded: group)) }
            index += 4
        }
        return out
    }

    private static func sextet(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): char - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): char - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
