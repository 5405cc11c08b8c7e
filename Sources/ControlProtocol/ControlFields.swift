import Encoding
import Events
import RTP
import SRTP
import Transport

/// Typed reads of a command's fields, each failing with the field's name.
struct ControlFields {
    let value: JSONValue

    init(_ value: JSONValue) {
        self.value = value
    }

    func optionalString(_ name: String) throws(ControlError) -> String? {
        guard let v = value[name], v != .null else { return nil }
        guard let s = v.stringValue else { throw ControlError(.badField, "\(name) must be a string", field: name) }
        return s
    }

    func string(_ name: String) throws(ControlError) -> String {
        guard let s = try optionalString(name) else { throw ControlError(.missingField, "missing \"\(name)\"", field: name) }
        return s
    }

    func receiverID() throws(ControlError) -> String {
        let id = try string("receiver")
        guard !id.isEmpty, id.utf8.count <= 128 else {
            throw ControlError(.badField, "receiver must be a non-empty id of at most 128 bytes", field: "receiver")
        }
        return id
    }

    func int(_ name: String, in range: ClosedRange<Int>) throws(ControlError) -> Int {
        guard let v = value[name], v != .null else { throw ControlError(.missingField, "missing \"\(name)\"", field: name) }
        guard let i = v.intValue, range.contains(i) else {
            throw ControlError(.badField, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)", field: name)
        }
        return i
    }

    func optionalBool(_ name: String) throws(ControlError) -> Bool? {
        guard let v = value[name], v != .null else { return nil }
        guard let b = v.boolValue else { throw ControlError(.badField, "\(name) must be true or false", field: name) }
        return b
    }

    func bool(_ name: String) throws(ControlError) -> Bool {
        guard let b = try optionalBool(name) else { throw ControlError(.missingField, "missing \"\(name)\" (true or false)", field: name) }
        return b
    }

    func address(_ name: String) throws(ControlError) -> SocketAddress {
        let text = try string(name)
        guard let address = try? SocketAddress(parsing: text) else {
            throw ControlError(.badField, "\(name) must be HOST:PORT with a numeric address, such as 127.0.0.1:5004 or [::1]:5004",
                               field: name)
        }
        return address
    }

    func policy(_ name: String) throws(ControlError) -> SendPolicy {
        let text = try string(name)
        guard let policy = SendPolicy.parse(text) else {
            throw ControlError(.badField, "\(name) must be balanced, detail or motion", field: name)
        }
        return policy
    }

    func optionalLevel(_ name: String) throws(ControlError) -> EventOutput.Level? {
        guard let text = try optionalString(name) else { return nil }
        guard let level = EventOutput.Level(name: text) else {
            throw ControlError(.badField, "\(name) must be debug, info, warning or error", field: name)
        }
        return level
    }
}
