/// Why a capture failed, in words a person can act on.
public struct CaptureError: Error, CustomStringConvertible, Sendable {
    /// Temporary: the watchdog's restart may mend it. Permanent: the share cannot go on.
    public enum Kind: Sendable { case temporary, permanent }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
