import CPipeWire
import Media
import Synchronization
import Capture

/// A screen of our own for tests: a PipeWire output node that drives itself
/// (`PW_STREAM_FLAG_DRIVER`, a frame every 1/rate s) and sends
/// `PipeWireTestPattern` pictures, optionally with cursor metadata, a size
/// change, or buffers it keeps back for a while as a busy compositor does.
public final class PipeWireTestProducer: PipeWireStreamDelegate, @unchecked Sendable {
    // Safety: frame state is touched only in stream callbacks (loop thread,
    // lock held) or inside `connection.locked`; `published` is a Mutex.
    public struct Options: Sendable {
        public var width: Int
        public var height: Int
        public var format: PipeWirePixelFormat = .bgrx
        public var rate = 30
        /// From this frame on, the picture has the new size (a renegotiation).
        public var resize: (atFrame: UInt64, width: Int, height: Int)?
        /// Send the pointer at this stream position as SPA_META_Cursor with a bitmap.
        public var cursor: (x: Int, y: Int)?
        /// Lie in that metadata, as a hostile producer might.
        public var cursorLie: CursorLie?
        /// Every `every` frames, keep `buffers` buffers back for `forFrames` frames.
        public var hold: (buffers: Int, every: UInt64, forFrames: UInt64)?

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// Cursor metadata that does not fit the meta area it is sent in.
    public enum CursorLie: Sendable, CaseIterable {
        /// `bitmap_offset` points far past the meta area.
        case bitmapOutsideMeta
        /// A 256×256 bitmap in an area with room for 64×64.
        case bitmapLargerThanMeta
        /// A stride shorter than a row of pixels.
        case strideShorterThanRow
        /// Pixels said to start past the end of the area.
        case pixelsOutsideMeta
    }

    private static let buffers = (preferred: 8, range: 2...16)
    private static let cursorMetaBytes = PipeWireCursor.preferredMetaBytes

    public let options: Options
    private let connection: PipeWireConnection
    private let stream: PipeWireStream
    private let ticker: FrameTicker
    private var size: (width: Int, height: Int)?
    private var frame: UInt64 = 0
    private var held: [(buffer: UnsafeMutablePointer<pw_buffer>, until: UInt64)] = []
    private let published = Mutex<(node: UInt32?, sent: UInt64)>((nil, 0))
    /// Broadcast when the node id is published.
    private let nodePublished = SystemClock().makeCondition()

    /// Connects through `remoteFD` (taken over) or to this user's daemon, and starts sending.
    public init(_ options: Options, remoteFD: Int32? = nil) throws(CaptureError) {
        self.options = options
        connection = try PipeWireConnection(remoteFD: remoteFD, threadName: "test-producer")
        stream = try PipeWireStream(core: connection.core, name: "screenshare-test-producer",
                                    properties: "media.class=Video/Source node.name=screenshare-test-producer")
        ticker = FrameTicker(fps: options.rate, name: "test-producer-clock")
        stream.delegate = self
        try stream.connect(direction: CPipeWire_DIRECTION_OUTPUT(), target: CPipeWire_ID_ANY(),
                           flags: [PW_STREAM_FLAG_DRIVER, PW_STREAM_FLAG_MAP_BUFFERS],
                           params: formatParams(width: options.width, height: options.height))
        connection.start()
        ticker.start(on: SystemClock()) { [weak self] _ in
            self?.trigger()
            return true
        }
    }

    private func trigger() {
        connection.locked {
            if let handle = stream.handle { _ = pw_stream_trigger_process(handle) }
        }
    }

    /// The producer's node id, once PipeWire has given it one.
    public var nodeID: UInt32? { published.withLock { $0.node } }
    public var framesSent: UInt64 { published.withLock { $0.sent } }

    /// The node id, waiting up to `limit` for PipeWire to give it one.
    public func waitForNode(within limit: Duration) -> UInt32? {
        let deadline = SystemClock().now + limit
        return nodePublished.withLock {
            while nodeID == nil, nodePublished.wait(until: deadline) {}
            return nodeID
        }
    }

    /// Removes the node at once (destroyed while the loop still runs, so the
    /// daemon hears of it), as a compositor ending a share does.
    public func stop() {
        ticker.stop()
        connection.locked { stream.destroy() }
        connection.stopThread()
    }

    deinit {
        stop()
    }

    private func formatParams(width: Int, height: Int) -> PipeWireParamList {
        let params = PipeWireParamList()
        params.addVideoFormats([options.format], size: (width, height), fixedSize: true, maxSide: max(width, height),
                               rate: options.rate, maxRate: options.rate)
        return params
    }

    // MARK: - Stream callbacks

    func streamStateChanged(to state: pw_stream_state, error: String?) {
        let node = stream.nodeID
        guard node != CPipeWire_ID_ANY() else { return }
        nodePublished.withLock {
            published.withLock { $0.node = node }
            nodePublished.broadcast()
        }
    }

    func streamParamChanged(id: UInt32, param: UnsafePointer<spa_pod>?) {
        guard id == SPA_PARAM_Format.rawValue, let param else { return }
        var spaFormat: UInt32 = 0, width: UInt32 = 0, height: UInt32 = 0, num: UInt32 = 0, denom: UInt32 = 0
        guard CPipeWire_parse_video_format(param, &spaFormat, &width, &height, &num, &denom) == 0 else { return }
        size = (Int(width), Int(height))
        let params = PipeWireParamList()
        params.addBuffers(count: Self.buffers.range, preferred: Self.buffers.preferred,
                          frameBytes: Int(width) * Int(height) * 4, stride: Int(width) * 4)
        if options.cursor != nil {
            params.addMeta(type: SPA_META_Cursor, bytes: Self.cursorMetaBytes...Self.cursorMetaBytes,
                           preferred: Self.cursorMetaBytes)
        }
        stream.updateParams(params)
    }

    func streamProcess() {
        guard let handle = stream.handle else { return }
        frame += 1
        if let resize = options.resize, frame == resize.atFrame {
            stream.updateParams(formatParams(width: resize.width, height: resize.height))
        }
        let due = held.filter { $0.until <= frame }
        held.removeAll { $0.until <= frame }
        for entry in due { send(entry.buffer, on: handle) }
        if let hold = options.hold, frame % hold.every == 0 {
            for _ in 0..<hold.buffers {
                guard let buffer = pw_stream_dequeue_buffer(handle) else { break }
                held.append((buffer, frame + hold.forFrames))
            }
        }
        if let buffer = pw_stream_dequeue_buffer(handle) { send(buffer, on: handle) }
    }

    // MARK: - Frames

    private func send(_ buffer: UnsafeMutablePointer<pw_buffer>, on handle: OpaquePointer) {
        defer { pw_stream_queue_buffer(handle, buffer) }
        let spa = buffer.pointee.buffer!
        guard let size, spa.pointee.n_datas > 0, let pixels = spa.pointee.datas[0].data,
              let chunk = spa.pointee.datas[0].chunk else { return }
        let stride = size.width * 4
        guard Int(spa.pointee.datas[0].maxsize) >= stride * size.height else {
            chunk.pointee.size = 0
            return
        }
        PipeWireTestPattern.draw(frame: frame, into: pixels, stride: stride, width: size.width, height: size.height,
                                 format: options.format)
        chunk.pointee.offset = 0
        chunk.pointee.size = UInt32(stride * size.height)
        chunk.pointee.stride = Int32(stride)
        chunk.pointee.flags = 0
        writeCursor(into: spa)
        published.withLock { $0.sent += 1 }
    }

    private func writeCursor(into buffer: UnsafeMutablePointer<spa_buffer>) {
        guard let position = options.cursor,
              let raw = spa_buffer_find_meta_data(buffer, SPA_META_Cursor.rawValue, Self.cursorMetaBytes) else { return }
        let side = PipeWireTestPattern.cursorSide
        let cursorBytes = MemoryLayout<spa_meta_cursor>.size
        let bitmapBytes = MemoryLayout<spa_meta_bitmap>.size
        var cursor = spa_meta_cursor()
        cursor.id = 1
        cursor.position = spa_point(x: Int32(position.x), y: Int32(position.y))
        cursor.hotspot = spa_point(x: Int32(PipeWireTestPattern.cursorHotspot.x), y: Int32(PipeWireTestPattern.cursorHotspot.y))
        cursor.bitmap_offset = UInt32(cursorBytes)
        raw.storeBytes(of: cursor, as: spa_meta_cursor.self)
        var bitmap = spa_meta_bitmap()
        bitmap.format = PipeWirePixelFormat.bgra.spaFormat
        bitmap.size = spa_rectangle(width: UInt32(side), height: UInt32(side))
        bitmap.stride = Int32(side * 4)
        bitmap.offset = UInt32(bitmapBytes)
        (raw + cursorBytes).storeBytes(of: bitmap, as: spa_meta_bitmap.self)
        let image = raw + cursorBytes + bitmapBytes
        let word = PipeWireTestPattern.cursorColour | 0xFF00_0000
        for index in 0..<(side * side) {
            image.storeBytes(of: word, toByteOffset: index * 4, as: UInt32.self)
        }
        switch options.cursorLie {
        case .bitmapOutsideMeta: cursor.bitmap_offset = 0x7FFF_0000
        case .bitmapLargerThanMeta: bitmap.size = spa_rectangle(width: 256, height: 256)
        case .strideShorterThanRow: bitmap.stride = 4
        case .pixelsOutsideMeta: bitmap.offset = UInt32(Self.cursorMetaBytes)
        case nil: return
        }
        raw.storeBytes(of: cursor, as: spa_meta_cursor.self)
        (raw + cursorBytes).storeBytes(of: bitmap, as: spa_meta_bitmap.self)
    }
}
