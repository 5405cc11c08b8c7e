/// The codec a receiver expects (`screen-receiver --codec`). Taken as an
/// option rather than guessed: a VP8 payload descriptor and an H.264 NAL
/// header cannot be told apart by their first byte.
public enum ReceivedCodec: String, Sendable, CaseIterable {
    case h264
    case vp8
}
