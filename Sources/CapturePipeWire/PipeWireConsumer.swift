import CPipeWire
import Media
import Capture

/// One run of a PipeWire capture: a connection, an input stream and, when
/// asked, the link to the producer. `PipeWireSource` makes a new one at
/// every start.
final class PipeWireConsumer: PipeWireStreamDelegate, @unchecked Sendable {
    // Safety: every stored var is touched only in stream callbacks (loop
    // thread, lock held) or inside `connection.locked`.
    /// We copy each frame and give its buffer back at once, so we hold at most
    /// one; five buffers leave the producer four free at all times.
    private static let buffers = (preferred: 8, range: 5...16)
    /// A link that has not made the stream start within this long is made again.
    private static let relinkAfter = Duration.seconds(1)
    static let formats: [PipeWirePixelFormat] = [.bgrx, .bgra, .rgbx, .rgba]
    /// Streams larger than this on a side are refused; 8K screens fit.
    private static let maxSide = 8192

    private let connection: PipeWireConnection
    private let stream: PipeWireStream
    private let output: CaptureOutput
    private let target: UInt32?
    private let linksItself: Bool
    private let framePeriod: Duration
    private var health: PipeWireStreamHealth
    private var format: PipeWirePixelFormat?
    private var streamSize = (width: 0, height: 0)
    private var cursor = PipeWireCursor()
    private let copier = PipeWireFrameCopier()
    /// The newest buffer, kept from its arrival until the ticker copies it;
    /// a newer one replaces it. Never more than one (docs/behaviour.md §2.1).
    private var waiting: UnsafeMutablePointer<pw_buffer>?
    private let arrived: @Sendable () -> Void
    private var frameNumber: UInt64 = 0
    private var link: OpaquePointer?
    private var linkedAt: Instant?
    private(set) var counters = PipeWireCaptureCounters()
    private(set) var cappedSize: (width: Int, height: Int)?

    /// `arrived` is called on the loop thread when a buffer is waiting: the
    /// source's ticker then calls `run`, which copies it.
    init(target: UInt32?, remoteFD: Int32?, fps: Int, linksItself: Bool, stallLimit: Duration,
         output: CaptureOutput, arrived: @escaping @Sendable () -> Void) throws(CaptureError) {
        connection = try PipeWireConnection(remoteFD: remoteFD, threadName: "capture-pipewire")
        // The target goes in as pw_stream_connect's node id (PipeWire makes it `node.target`), never as
        // `target.object`: WirePlumber reads that as an object serial, and the portal hands out node ids,
        // which PipeWire reuses, so a later share's id names another node's serial, or none.
        let role = "media.type=Video media.category=Capture media.role=Screen node.name=screenshare-capture"
        stream = try PipeWireStream(core: connection.core, name: "screenshare", properties: role)
        self.output = output
        self.target = target
        self.linksItself = linksItself
        self.arrived = arrived
        framePeriod = .framePeriod(fps: fps)
        health = PipeWireStreamHealth(stallLimit: stallLimit, now: output.clock.now)
        stream.delegate = self
        let params = PipeWireParamList()
        params.addVideoFormats(Self.formats, size: (1920, 1080), fixedSize: false, maxSide: Self.maxSide,
                               rate: 0, maxRate: max(1, fps))
        var flags = [PW_STREAM_FLAG_MAP_BUFFERS, PW_STREAM_FLAG_DONT_RECONNECT]
        if !linksItself { flags.append(PW_STREAM_FLAG_AUTOCONNECT) }
        try stream.connect(direction: CPipeWire_DIRECTION_INPUT(), target: linksItself ? CPipeWire_ID_ANY() : target ?? CPipeWire_ID_ANY(),
                           flags: flags, params: params)
        connection.start()
    }

    func stop() {
        connection.stopThread()
        // The stream frees its buffers as it goes.
        waiting = nil
        if let link { pw_proxy_destroy(link) }
        link = nil
        stream.destroy()
    }

    /// Called from the source's ticker thread once a frame period, and as soon
    /// as the schedule allows after a buffer arrived: copies the waiting buffer,
    /// if any, and looks at the stream's health. `delivered` says whether a
    /// frame went out.
    func run() -> (verdict: PipeWireStreamHealth.Verdict, delivered: Bool) {
        connection.locked {
            var delivered = false
            if let buffer = waiting, let handle = stream.handle {
                waiting = nil
                cursor.update(from: buffer.pointee.buffer)
                counters.cursorRefused = UInt64(cursor.refused)
                delivered = deliver(buffer.pointee.buffer)
                pw_stream_queue_buffer(handle, buffer)
            }
            let now = output.clock.now
            if linksItself, health.phase != .streaming, let linkedAt, now - linkedAt >= Self.relinkAfter {
                makeLink(at: now)
            }
            return (health.check(at: now, period: framePeriod), delivered)
        }
    }

    var snapshot: (counters: PipeWireCaptureCounters, size: (width: Int, height: Int)?) {
        connection.locked { (counters, cappedSize) }
    }

    // MARK: - Stream callbacks

    func streamStateChanged(to state: pw_stream_state, error: String?) {
        let now = output.clock.now
        switch state {
        case PW_STREAM_STATE_STREAMING: health.enter(.streaming, at: now)
        case PW_STREAM_STATE_PAUSED:
            health.enter(.paused, at: now)
            if linksItself, link == nil { makeLink(at: now) }
        case PW_STREAM_STATE_CONNECTING: health.enter(.connecting, at: now)
        case PW_STREAM_STATE_UNCONNECTED: health.enter(.unconnected, at: now)
        default: health.enter(.error(error ?? "no reason given"), at: now)
        }
    }

    func streamParamChanged(id: UInt32, param: UnsafePointer<spa_pod>?) {
        guard id == SPA_PARAM_Format.rawValue else { return }
        var spaFormat: UInt32 = 0, width: UInt32 = 0, height: UInt32 = 0, rateNum: UInt32 = 0, rateDenom: UInt32 = 0
        guard let param, CPipeWire_parse_video_format(param, &spaFormat, &width, &height, &rateNum, &rateDenom) == 0,
              let negotiated = PipeWirePixelFormat(spaFormat: spaFormat), width > 0, height > 0 else {
            format = nil
            return
        }
        format = negotiated
        streamSize = (Int(width), Int(height))
        cappedSize = CaptureLimits.capped(width: streamSize.width, height: streamSize.height)
        // Compositors announce 0/1, "frames only when something changed".
        health.damageDriven = rateNum == 0
        let params = PipeWireParamList()
        params.addBuffers(count: Self.buffers.range, preferred: Self.buffers.preferred)
        params.addMeta(type: SPA_META_Cursor, bytes: PipeWireCursor.metaBytes(side: 1)...PipeWireCursor.metaBytes(side: PipeWireCursor.maxSide),
                       preferred: PipeWireCursor.preferredMetaBytes)
        stream.updateParams(params)
    }

    func streamProcess() {
        guard let handle = stream.handle else { return }
        // Take everything waiting and keep only the newest frame.
        var newest: UnsafeMutablePointer<pw_buffer>?
        while let buffer = pw_stream_dequeue_buffer(handle) {
            counters.received += 1
            if let older = newest {
                giveBack(older, to: handle)
                counters.droppedSuperseded += 1
            }
            newest = buffer
        }
        guard let newest else { return }
        if let older = waiting {
            // It came within a frame period of the last capture, and now a newer one has too.
            giveBack(older, to: handle)
            counters.droppedOverRate += 1
        }
        waiting = newest
        arrived()
    }

    /// Returns a buffer unused, keeping the cursor it carried.
    private func giveBack(_ buffer: UnsafeMutablePointer<pw_buffer>, to handle: OpaquePointer) {
        cursor.update(from: buffer.pointee.buffer)
        counters.cursorRefused = UInt64(cursor.refused)
        pw_stream_queue_buffer(handle, buffer)
    }

    func streamBufferRemoved(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        if waiting == buffer { waiting = nil }
    }

    // MARK: - Frames

    private func deliver(_ buffer: UnsafeMutablePointer<spa_buffer>) -> Bool {
        let now = output.clock.now
        guard let format, let cappedSize, buffer.pointee.n_datas > 0 else { return false }
        let data = buffer.pointee.datas[0]
        guard let base = data.data, let chunk = data.chunk?.pointee, chunk.size > 0,
              chunk.flags & Int32(SPA_CHUNK_FLAG_CORRUPTED) == 0 else {
            counters.droppedEmpty += 1
            return false
        }
        let stride = chunk.stride > 0 ? Int(chunk.stride) : streamSize.width * 4
        let offset = Int(chunk.offset) % max(1, Int(data.maxsize))
        guard offset + stride * (streamSize.height - 1) + streamSize.width * 4 <= Int(data.maxsize) else {
            counters.droppedEmpty += 1
            return false
        }
        health.frameArrived(at: now)
        frameNumber += 1
        let source = UnsafeRawPointer(base + offset)
        let size = streamSize
        let pointer = cursor
        let copier = self.copier
        let written = output.write(frameNumber: frameNumber, width: cappedSize.width, height: cappedSize.height) { surface in
            copier.copy(source, stride: stride, size: size, format: format, into: surface)
            pointer.draw(into: surface, scaleX: Double(surface.width) / Double(size.width),
                         scaleY: Double(surface.height) / Double(size.height))
            return true
        }
        if written {
            counters.delivered += 1
        } else {
            counters.droppedAllSurfacesHeld += 1
        }
        return written
    }

    /// Without a session manager nothing links the producer to us, so we
    /// ask the daemon's link factory; the link goes with our connection.
    private func makeLink(at now: Instant) {
        if let link { pw_proxy_destroy(link) }
        link = nil
        linkedAt = now
        let ownNode = stream.nodeID
        guard let target, ownNode != CPipeWire_ID_ANY(),
              let properties = pw_properties_new_string(
                "link.output.node=\(target) link.input.node=\(ownNode) object.linger=false") else { return }
        defer { pw_properties_free(properties) }
        if let proxy = pw_core_create_object(connection.core, "link-factory", CPipeWire_TYPE_INTERFACE_Link(),
                                             UInt32(PW_VERSION_LINK), &properties.pointee.dict, 0) {
            link = OpaquePointer(proxy)
        }
    }
}
