/// What to share, as `share --source …` and serve's `start` and `setSource`
/// both ask for it: the generated screen, an X11 display (the screen, one
/// monitor, one window or a region), a PipeWire node, or the desktop portal.
public struct SourceRequest: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case synthetic
        /// nil: the display named by DISPLAY.
        case x11(display: String?)
        /// nil: the node the session manager picks.
        case pipewire(node: UInt32?)
        case portal
    }

    /// Which part of an X11 display.
    public enum X11Part: Sendable, Equatable {
        case screen
        case monitor(String)
        case window(UInt32)
        case region(x: Int, y: Int, width: Int, height: Int)
    }

    public static let scenarios = ["demo", "motion", "still"]
    /// Longer display names, monitor names and tokens are refused: none comes near this.
    public static let maxTextLength = 256

    public var kind: Kind
    public var part = X11Part.screen
    /// Ask the portal for a window rather than a monitor.
    public var portalWindow = false
    /// A restore token the call client kept from an earlier share: the portal may then skip its picker.
    public var restoreToken: String?
    /// Link to the PipeWire node ourselves, for a daemon with no session manager.
    public var linkPipeWire = false
    /// The generated screen's size and what it does.
    public var width = 1920
    public var height = 1080
    public var scenario = "demo"

    public init(kind: Kind) {
        self.kind = kind
    }

    /// Why a source could not be read; `option` names the field or option at fault.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let option: String
        public let message: String

        public var description: String { message }
    }

    /// Reads `synthetic`, `x11[:DISPLAY]`, `pipewire[:NODE]` or `portal`.
    public static func kind(parsing text: String) throws(Failure) -> Kind {
        let (name, argument) = split(text)
        switch (name, argument) {
        case ("synthetic", nil):
            return .synthetic
        case ("x11", let display):
            guard let display else { return .x11(display: nil) }
            guard !display.isEmpty, display.utf8.count <= maxTextLength, !display.contains("\0") else {
                throw Failure(option: "source", message: "x11:DISPLAY needs a display name such as :1, not \"\(display.prefix(40))\"")
            }
            return .x11(display: display)
        case ("pipewire", let node):
            guard let node else { return .pipewire(node: nil) }
            guard let id = UInt32(node) else {
                throw Failure(option: "source", message: "pipewire:NODE needs a numeric node id, not \"\(node.prefix(40))\"")
            }
            return .pipewire(node: id)
        case ("portal", nil):
            return .portal
        default:
            throw Failure(option: "source", message: "unknown source \"\(text.prefix(40))\": use synthetic, x11[:DISPLAY], pipewire[:NODE] or portal")
        }
    }

    /// An X window id as X tools print it (0x400001), or in decimal.
    public static func window(parsing text: String) -> UInt32? {
        let hex = text.hasPrefix("0x") || text.hasPrefix("0X")
        return UInt32(hex ? String(text.dropFirst(2)) : text, radix: hex ? 16 : 10)
    }

    /// WIDTHxHEIGHT+X+Y, as X11 geometry is written; X11 sizes are 16-bit
    /// unsigned and positions 16-bit signed, so nothing larger lies on a screen.
    public static func region(parsing text: String) -> X11Part? {
        guard let plus = text.firstIndex(of: "+") else { return nil }
        let size = text[..<plus].split(separator: "x", omittingEmptySubsequences: false)
        let origin = text[text.index(after: plus)...].split(separator: "+", omittingEmptySubsequences: false)
        guard size.count == 2, origin.count == 2, let w = Int(size[0]), let h = Int(size[1]), let x = Int(origin[0]), let y = Int(origin[1]),
              (1...65535).contains(w), (1...65535).contains(h), (0...32767).contains(x), (0...32767).contains(y) else { return nil }
        return .region(x: x, y: y, width: w, height: h)
    }

    /// Checks that the options given belong to the source: a monitor only for X11, a token only for the
    /// portal. `spelling` names an option the way the caller's user writes it (`--portal-window`).
    public func validate(spelling: (String) -> String = { $0 }) throws(Failure) {
        func misplaced(_ option: String, _ source: String) -> Failure {
            Failure(option: option, message: "\(spelling(option)) applies to the \(source) source only")
        }
        switch kind {
        case .x11:
            if portalWindow || restoreToken != nil { throw misplaced(portalWindow ? "portalWindow" : "restoreToken", "portal") }
        case .portal:
            if part != .screen { throw misplaced(partName, "x11") }
        case .synthetic, .pipewire:
            if part != .screen { throw misplaced(partName, "x11") }
            if portalWindow || restoreToken != nil { throw misplaced(portalWindow ? "portalWindow" : "restoreToken", "portal") }
        }
        if linkPipeWire, kind == .synthetic || kind.isX11 { throw misplaced("pipewireLink", "pipewire or portal") }
    }

    private var partName: String {
        switch part {
        case .screen: "screen"
        case .monitor: "monitor"
        case .window: "window"
        case .region: "region"
        }
    }

    private static func split(_ spec: String) -> (String, String?) {
        guard let colon = spec.firstIndex(of: ":") else { return (spec, nil) }
        return (String(spec[..<colon]), String(spec[spec.index(after: colon)...]))
    }
}

extension SourceRequest.Kind {
    var isX11: Bool {
        if case .x11 = self { return true }
        return false
    }
}
