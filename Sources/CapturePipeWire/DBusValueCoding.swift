import CDBus

/// Writing and reading `DBusValue`s through libdbus's message iterators.
///
/// libdbus names each type by its signature character (`DBUS_TYPE_STRING`
/// is `'s'`); those macros are casts Swift cannot import, so the codes are
/// taken from the characters here.
enum DBusTypeCode {
    static func of(_ character: Character) -> Int32 { Int32(character.asciiValue ?? 0) }
    static let invalid: Int32 = 0
}

extension DBusValue {
    /// Appends this value at `iterator`. libdbus fails only when out of
    /// memory, which it cannot recover from either, so that stops the program.
    func append(to iterator: inout DBusMessageIter) {
        let appended: Bool
        switch self {
        case .byte(var value): appended = appendBasic(&value, "y", &iterator)
        case .bool(let value):
            var truth = dbus_bool_t(value ? 1 : 0)
            appended = appendBasic(&truth, "b", &iterator)
        case .int32(var value): appended = appendBasic(&value, "i", &iterator)
        case .uint32(var value): appended = appendBasic(&value, "u", &iterator)
        case .int64(var value): appended = appendBasic(&value, "x", &iterator)
        case .uint64(var value): appended = appendBasic(&value, "t", &iterator)
        case .double(var value): appended = appendBasic(&value, "d", &iterator)
        case .unixFD(var value): appended = appendBasic(&value, "h", &iterator)
        case .string(let text): appended = appendText(text, "s", &iterator)
        case .objectPath(let text): appended = appendText(text, "o", &iterator)
        case .variant(let inner): appended = appendContainer("v", inner.signature, [inner], &iterator)
        case .array(let element, let elements): appended = appendContainer("a", element, elements, &iterator)
        case .dictEntry(let key, let value): appended = appendContainer("e", nil, [key, value], &iterator)
        case .structure(let fields): appended = appendContainer("r", nil, fields, &iterator)
        case .unsupported(let code): preconditionFailure("Cannot write a D-Bus value of type \(code)")
        }
        precondition(appended, "libdbus ran out of memory while building a message")
    }

    private func appendBasic<T: BitwiseCopyable>(_ value: inout T, _ code: Character, _ iterator: inout DBusMessageIter) -> Bool {
        dbus_message_iter_append_basic(&iterator, DBusTypeCode.of(code), &value) != 0
    }

    private func appendText(_ text: String, _ code: Character, _ iterator: inout DBusMessageIter) -> Bool {
        text.withCString { characters in
            var pointer: UnsafePointer<CChar>? = characters
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.of(code), &pointer) != 0
        }
    }

    private func appendContainer(_ code: Character, _ contained: String?, _ members: [DBusValue],
                                 _ iterator: inout DBusMessageIter) -> Bool {
        var inner = DBusMessageIter()
        let opened = if let contained {
            contained.withCString { dbus_message_iter_open_container(&iterator, DBusTypeCode.of(code), $0, &inner) != 0 }
        } else {
            dbus_message_iter_open_container(&iterator, DBusTypeCode.of(code), nil, &inner) != 0
        }
        guard opened else { return false }
        for member in members { member.append(to: &inner) }
        return dbus_message_iter_close_container(&iterator, &inner) != 0
    }

    /// Reads every value from `iterator` to its end.
    static func readAll(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != DBusTypeCode.invalid {
            values.append(read(&iterator))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func read(_ iterator: inout DBusMessageIter) -> DBusValue {
        let code = Character(Unicode.Scalar(UInt8(truncatingIfNeeded: dbus_message_iter_get_arg_type(&iterator))))
        switch code {
        case "y": return .byte(basic(&iterator, UInt8(0)))
        case "b": return .bool(basic(&iterator, dbus_bool_t(0)) != 0)
        case "i": return .int32(basic(&iterator, Int32(0)))
        case "u": return .uint32(basic(&iterator, UInt32(0)))
        case "x": return .int64(basic(&iterator, Int64(0)))
        case "t": return .uint64(basic(&iterator, UInt64(0)))
        case "d": return .double(basic(&iterator, Double(0)))
        case "h": return .unixFD(basic(&iterator, Int32(-1)))
        case "s", "o":
            let pointer = basic(&iterator, UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            return code == "o" ? .objectPath(text) : .string(text)
        case "v":
            return .variant(contents(&iterator).first ?? .unsupported("v"))
        case "a":
            return .array(elementSignature: String(signature(&iterator).dropFirst()), contents(&iterator))
        case "e":
            let pair = contents(&iterator)
            guard pair.count == 2 else { return .unsupported("e") }
            return .dictEntry(key: pair[0], value: pair[1])
        case "r":
            return .structure(contents(&iterator))
        default:
            return .unsupported(code)
        }
    }

    private static func basic<T: BitwiseCopyable>(_ iterator: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    private static func contents(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &inner)
        return readAll(&inner)
    }

    private static func signature(_ iterator: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iterator) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}
