import Events

/// Why a control message was refused, in words the call client's developer
/// can act on. It never carries an SRTP key: an error about a key says its
/// length or that it is not base64, never its bytes.
public struct ControlError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// The line is not JSON, or not a JSON object.
        case malformedJSON
        /// Commands other than `hello` before the `hello` exchange.
        case helloFirst
        /// The client speaks a protocol version this program does not.
        case unsupportedVersion
        case unknownCommand
        case missingField
        /// A field is there but of the wrong type or out of range.
        case badField
        /// The SRTP key is not base64, or has the wrong length for its profile.
        case badKey
        case unknownReceiver
        case duplicateReceiver
        /// `start` while a share is running.
        case alreadySharing
        /// A command that needs a share before `start`.
        case notSharing
        /// Plain RTP where it is not allowed (docs/behaviour.md §8.4).
        case insecureRefused
        /// The receiver offers no codec this sender can send.
        case noCommonCodec
        /// The command was valid but carrying it out failed (a socket, an encoder, the capture).
        case failed
        /// Another call client is already connected to this serve (a Unix socket takes one at a time).
        case busy
    }

    public var code: Code
    public var message: String
    /// The field at fault, dotted for nested ones (`srtp.key`).
    public var field: String?
    /// The command's `id`, echoed, when the line had one.
    public var id: JSONValue?
    /// The command's name, when the line had one.
    public var command: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The `error` event's fields.
    public var json: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = []
        if let id { fields.append(("id", id)) }
        if let command { fields.append(("cmd", .string(command))) }
        fields.append(("code", .string(code.rawValue)))
        if let field { fields.append(("field", .string(field))) }
        fields.append(("message", .string(message)))
        return fields
    }
}
