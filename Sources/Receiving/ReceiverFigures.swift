/// What the receiver prints once a second.
public struct ReceiverFigures: Sendable, Equatable {
    public var packets = 0
    public var framesReceived = 0
    public var framesDecoded = 0
    public var framesIncomplete = 0
    public var framesSwallowed = 0
    /// Frames dropped for growing past the bound a frame may reach (docs/behaviour.md §6.2).
    public var framesOversized = 0
    public var width = 0
    public var height = 0
    public var decodedFPS = 0.0
    public var keyframes = 0
    public var plisSent = 0
    public var nacksSent = 0
    /// RTX packets (RFC 4588) whose original went on to the stream.
    public var retransmissionsReceived = 0
    public var rembsSent = 0
    public var transportFeedbackSent = 0
    public var srtpFailures = 0
    public var malformed = 0
    public var ssrc: UInt32 = 0
    public var ssrcChanges = 0
    public var bitrate = 0
    public var lostPackets = 0
    /// Frames whose stamp was read (synthetic sources only).
    public var stampedFrames = 0
    public var lastStamp: UInt32?

    public init() {}

    public var line: String {
        "packets \(packets), frames received \(framesReceived), decoded \(framesDecoded) at \(width)×\(height), "
            + "\(Int(decodedFPS.rounded())) fps, keyframes \(keyframes), PLIs \(plisSent), NACKs \(nacksSent), "
            + "RTX \(retransmissionsReceived), "
            + "SRTP failures \(srtpFailures), \(String(format: "%.2f", Double(bitrate) / 1e6)) Mbit/s"
    }
}
