/// What a share gives up when the link or the encoder cannot carry
/// everything (docs/behaviour.md §3.1). Switchable on a running share; no renegotiation.
public enum SendPolicy: String, Sendable, CaseIterable {
    /// Holds the frame rate; full size while the link allows, smaller when it does not.
    case balanced
    /// Holds resolution; lets frames fall.
    case detail
    /// Holds the frame rate at 1280 on the long side at most, within level 3.1.
    case motion

    public var displayName: String {
        switch self {
        case .balanced: "Balanced"
        case .detail: "Text and detail"
        case .motion: "Motion and video"
        }
    }

    public static func parse(_ text: String) -> SendPolicy? {
        switch text.lowercased() {
        case "balanced": .balanced
        case "detail", "text", "text-and-detail": .detail
        case "motion", "video", "motion-and-video": .motion
        default: nil
        }
    }

    /// Motion content is not a screencast: receivers treat it as camera-like
    /// video, which many hardware decoders only take up to level 3.1.
    public var longSideLimit: Int { self == .motion ? 1280 : 1920 }
}
