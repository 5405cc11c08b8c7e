/// One D-Bus value, as a message carries it. Only the shapes the ScreenCast
/// portal uses are spelled out; anything else read from a message survives
/// as `.unsupported` so a newer portal's extra fields cannot break parsing.
///
/// A `.unixFD` read from a message is a descriptor the reader owns and must
/// close; one appended to a message is copied by libdbus and stays the caller's.
package enum DBusValue {
    case byte(UInt8)
    case bool(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case unixFD(Int32)
    indirect case variant(DBusValue)
    /// The element signature is kept so that an empty array still has a type.
    case array(elementSignature: String, [DBusValue])
    indirect case dictEntry(key: DBusValue, value: DBusValue)
    case structure([DBusValue])
    /// A type this code does not read (its signature character is kept for messages).
    case unsupported(Character)

    /// An `a{sv}`: the option and result dictionaries every portal call uses.
    package static func vardict(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array(elementSignature: "{sv}", entries.map { .dictEntry(key: .string($0.0), value: .variant($0.1)) })
    }

    package var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .unixFD: "h"
        case .variant: "v"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .unsupported(let code): String(code)
        }
    }

    /// The value inside any number of variants.
    package var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    package var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text): text
        default: nil
        }
    }

    package var uint32: UInt32? {
        if case .uint32(let number) = unwrapped { return number }
        return nil
    }

    package var int32: Int32? {
        if case .int32(let number) = unwrapped { return number }
        return nil
    }

    package var elements: [DBusValue]? {
        if case .array(_, let elements) = unwrapped { return elements }
        return nil
    }

    package var fields: [DBusValue]? {
        if case .structure(let fields) = unwrapped { return fields }
        return nil
    }

    /// An `a{sv}` (or any dictionary with string keys) as a Swift dictionary, variants unwrapped.
    package var dictionary: [String: DBusValue]? {
        guard let elements else { return nil }
        var result: [String: DBusValue] = [:]
        for element in elements {
            guard case .dictEntry(let key, let value) = element, let name = key.string else { return nil }
            result[name] = value.unwrapped
        }
        return result
    }
}
