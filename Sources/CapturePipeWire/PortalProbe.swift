/// What the ScreenCast portal on this desktop offers, for `screenshare sources`.
public struct PortalProbe: Sendable, CustomStringConvertible {
    /// Persisting the choice (restore tokens) came with version 4.
    static let firstVersionWithRestore: UInt32 = 4

    /// Why there is no usable portal; nil when there is one.
    public let problem: String?
    public let version: UInt32?
    public let sourceTypes: PortalSourceTypes
    public let cursorModes: PortalCursorModes

    public var reachable: Bool { problem == nil }
    /// Whether the portal can hand out restore tokens, so the picker need not be shown again.
    public var remembersChoice: Bool { (version ?? 0) >= Self.firstVersionWithRestore }

    public init(problem: String?, version: UInt32?, sourceTypes: PortalSourceTypes, cursorModes: PortalCursorModes) {
        self.problem = problem
        self.version = version
        self.sourceTypes = sourceTypes
        self.cursorModes = cursorModes
    }

    /// Reads the answer to `Properties.GetAll` on the ScreenCast interface.
    init(properties: [String: DBusValue]) {
        version = properties["version"]?.uint32
        sourceTypes = PortalSourceTypes(rawValue: properties["AvailableSourceTypes"]?.uint32 ?? 0)
        cursorModes = PortalCursorModes(rawValue: properties["AvailableCursorModes"]?.uint32 ?? 0)
        problem = version == nil ? "the desktop portal has no ScreenCast interface" : nil
    }

    static func unreachable(_ problem: String) -> PortalProbe {
        PortalProbe(problem: problem, version: nil, sourceTypes: [], cursorModes: [])
    }

    public var description: String {
        guard let version, problem == nil else {
            return "ScreenCast portal: not reachable (\(problem ?? "no version")). Screen sharing on Wayland needs "
                + "xdg-desktop-portal and the backend for your desktop (xdg-desktop-portal-gnome, -kde or -wlr)."
        }
        let restore = remembersChoice
            ? "remembers the last choice" : "asks every time (version \(Self.firstVersionWithRestore) remembers the choice)"
        return "ScreenCast portal version \(version): shares \(sourceTypes); pointer modes \(cursorModes); \(restore)."
    }
}
