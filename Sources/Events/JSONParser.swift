/// A strict JSON parser (RFC 8259) for control messages. Its own, rather
/// than Foundation's, so that numbers, booleans and key order come out the
/// same on every platform, and so it can be fuzzed on its own.
public struct JSONParser {
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Nesting deeper than this is refused rather than recursed into.
    static let maxDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    public static func parse(_ text: String) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: Array(text.utf8))
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.fail("unexpected text after the value") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func fail(_ reason: String) -> Failure {
        Failure(offset: index, reason: reason)
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let c = peek, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { index += 1 }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(Failure) -> JSONValue {
        for c in literal.utf8 {
            guard peek == c else { throw fail("expected \(literal)") }
            index += 1
        }
        return value
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < JSONParser.maxDepth else { throw fail("nested too deeply") }
        switch peek {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case .some(let c) where c == UInt8(ascii: "-") || (c >= 0x30 && c <= 0x39): return try number()
        case nil: throw fail("unexpected end of text")
        default: throw fail("unexpected character")
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var pairs: [(String, JSONValue)] = []
        var keys: Set<String> = []
        skipSpace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return .object(pairs)
        }
        while true {
            skipSpace()
            guard peek == UInt8(ascii: "\"") else { throw fail("expected a key in quotes") }
            let keyStart = index
            let key = try string()
            // RFC 8259 §4 leaves duplicate names to the reader; taking one of two would let a line mean two
            // things, so it is refused. A set keeps the check linear in the number of keys.
            guard keys.insert(key).inserted else { throw Failure(offset: keyStart, reason: "a key appears twice in one object") }
            skipSpace()
            guard peek == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipSpace()
            let v = try value(depth: depth + 1)
            pairs.append((key, v))
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(pairs)
            default: throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(items)
            default: throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            if !raw.isEmpty {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
        }
        while true {
            guard let c = peek else { throw fail("unterminated string") }
            index += 1
            switch c {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard let e = peek else { throw fail("unterminated escape") }
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
                default: throw fail("unknown escape")
                }
            case 0..<0x20: throw fail("control character in string")
            default: raw.append(c)
            }
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count,
              let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw fail("bad \\u escape")
        }
        index += 4
        return v
    }

    private mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
        let high = try hex4()
        if (0xD800..<0xDC00).contains(high) {
            guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw fail("lone surrogate")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low),
                  let s = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                throw fail("bad surrogate pair")
            }
            return s
        }
        guard let s = Unicode.Scalar(high) else { throw fail("lone surrogate") }
        return s
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        var isInteger = true
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, first >= 0x30 && first <= 0x39 else { throw fail("bad number") }
        if first == 0x30 {
            index += 1
        } else {
            while let c = peek, c >= 0x30 && c <= 0x39 { index += 1 }
        }
        if peek == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let c = peek, c >= 0x30 && c <= 0x39 else { throw fail("bad fraction") }
            while let c = peek, c >= 0x30 && c <= 0x39 { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let c = peek, c >= 0x30 && c <= 0x39 else { throw fail("bad exponent") }
            while let c = peek, c >= 0x30 && c <= 0x39 { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int(text) { return .int(i) }
        guard let d = Double(text) else { throw fail("bad number") }
        return .double(d)
    }
}
