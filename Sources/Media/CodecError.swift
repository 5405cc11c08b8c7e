/// A codec library refused something; the message says what, in its own words where it has them.
public struct CodecError: Error, CustomStringConvertible, Sendable {
    public let codec: String
    public let operation: String
    public let detail: String

    public init(codec: String, operation: String, detail: String) {
        self.codec = codec
        self.operation = operation
        self.detail = detail
    }

    public var description: String { "\(codec): \(operation) failed: \(detail)" }
}
