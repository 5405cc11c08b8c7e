import Encoding
import ControlProtocol

/// What receivers must have in common, besides a bitrate class, to share an
/// encoder (docs/behaviour.md §12): the codec with its H.264 profile, and the
/// level ceiling they negotiated.
struct LayerKey: Equatable, Sendable {
    let codec: ReceiverConfig.Codec
    let levelLimit: H264Level?

    init(_ config: ReceiverConfig) {
        codec = config.codec
        levelLimit = config.levelLimit
    }
}
