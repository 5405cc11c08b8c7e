/// What a PipeWire capture did with the buffers it was given.
public struct PipeWireCaptureCounters: Sendable, Equatable {
    /// Buffers taken from the stream.
    public var received: UInt64 = 0
    /// Frames written into a surface and handed on.
    public var delivered: UInt64 = 0
    /// Frames that arrived while a newer one was waiting: one frame in flight, never a queue.
    public var droppedSuperseded: UInt64 = 0
    /// Frames over the share's frame rate.
    public var droppedOverRate: UInt64 = 0
    /// Frames dropped because every surface was held downstream.
    public var droppedAllSurfacesHeld: UInt64 = 0
    /// Buffers with no usable picture (empty or marked corrupted).
    public var droppedEmpty: UInt64 = 0
    /// Cursor bitmaps refused because their metadata did not fit the buffer it came in.
    public var cursorRefused: UInt64 = 0

    public init() {}
}
