import CPipeWire

/// The 32-bit layouts a PipeWire screen stream may use in shared memory.
/// Names give the byte order in memory, as SPA does.
public enum PipeWirePixelFormat: String, Sendable, CaseIterable {
    case bgrx = "BGRx"
    case bgra = "BGRA"
    case rgbx = "RGBx"
    case rgba = "RGBA"

    /// Red first: the frame needs red and blue swapped to become our BGRx.
    public var isRedFirst: Bool { self == .rgbx || self == .rgba }

    var spaFormat: UInt32 {
        switch self {
        case .bgrx: SPA_VIDEO_FORMAT_BGRx.rawValue
        case .bgra: SPA_VIDEO_FORMAT_BGRA.rawValue
        case .rgbx: SPA_VIDEO_FORMAT_RGBx.rawValue
        case .rgba: SPA_VIDEO_FORMAT_RGBA.rawValue
        }
    }

    init?(spaFormat: UInt32) {
        guard let match = Self.allCases.first(where: { $0.spaFormat == spaFormat }) else { return nil }
        self = match
    }
}
