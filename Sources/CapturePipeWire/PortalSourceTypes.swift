/// What the ScreenCast portal can share (its `AvailableSourceTypes` bits,
/// and the `types` option of SelectSources).
public struct PortalSourceTypes: OptionSet, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let monitor = PortalSourceTypes(rawValue: 1)
    public static let window = PortalSourceTypes(rawValue: 2)
    /// A screen the compositor makes up for the share (version 3 and later).
    public static let virtual = PortalSourceTypes(rawValue: 4)

    /// ["monitor", "window"]: the kinds offered, by name.
    public var names: [String] {
        [(Self.monitor, "monitor"), (Self.window, "window"), (Self.virtual, "virtual")].filter { contains($0.0) }.map(\.1)
    }

    /// "monitor", "monitor, window", or "none".
    public var description: String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}
