/// How the portal may show the pointer (its `AvailableCursorModes` bits,
/// and the `cursor_mode` option of SelectSources).
public struct PortalCursorModes: OptionSet, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let hidden = PortalCursorModes(rawValue: 1)
    /// Drawn into the frames by the compositor.
    public static let embedded = PortalCursorModes(rawValue: 2)
    /// Sent beside the frames; `PipeWireSource` draws it in itself.
    public static let metadata = PortalCursorModes(rawValue: 4)

    /// The mode to ask for: the compositor's own drawing is cheapest and
    /// always right, metadata we draw ourselves, and a share with no pointer
    /// is the last resort. Nil when the portal offers none of them.
    public var preferred: PortalCursorModes? {
        [Self.embedded, .metadata, .hidden].first { contains($0) }
    }

    /// "embedded, metadata", or "none".
    public var description: String {
        let names = [(Self.hidden, "hidden"), (Self.embedded, "embedded"), (Self.metadata, "metadata")]
            .filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}
