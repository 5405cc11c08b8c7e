/// What the sharer is told about a receiver's stalled view, in docs/behaviour.md §5.5 words.
public enum StallNotice: Equatable, Sendable {
    /// Keyframes are on their way.
    case recovering(receiver: String)
    /// That person's screen is being rebuilt, and, if needed, shared again.
    case restarting(receiver: String)
    /// The ladder has run out of steps: only the person can try now.
    case couldNotRestore(receiver: String)

    /// The sentence shown to the sharer.
    public var text: String {
        switch self {
        case .recovering(let name):
            "\(name)'s view of your screen stalled — recovering"
        case .restarting(let name):
            "Restarting your share for \(name)…"
        case .couldNotRestore(let name):
            "Couldn't restore \(name)'s view — try Stop and Share again"
        }
    }
}
