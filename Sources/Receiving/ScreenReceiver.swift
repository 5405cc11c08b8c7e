import Synthetic
import Decoders
import Events
import Foundation
import Media
import Recovery
import RTP
import SRTP
import Transport

/// The project's own receiver: SRTP in, depacketize, decode with libavcodec,
/// and the feedback a real receiver sends (RR, PLI, generic NACK, and
/// transport-wide feedback when the sender stamps its numbers, REMB when not).
/// It also reports `screenStalled` the way a call client's receiver would.
public final class ScreenReceiver: @unchecked Sendable {
    // Safety: everything is touched only on the thread running `run`, except
    // `commands`, guarded by `commandLock`.
    public struct Options: Sendable {
        public var listen: SocketAddress
        public var key: SRTPKey?
        public var duration: Double?
        public var wedge: WedgeMode?
        public var wedgeAfter: Double = 5
        /// The synthetic source's width, to read frame stamps from scaled pictures.
        public var sourceWidth: Int?
        /// The synthetic screen the sender shares: when set, each decoded
        /// frame whose stamp reads is compared with its regenerated source.
        public var quality: QualityMeter.Source?
        /// What the stream carries: H.264 (the default) or VP8.
        public var codec = ReceivedCodec.h264
        /// The transport-wide sequence number's extension id; nil: none is read.
        public var transportWide = TransportSequenceNumber(extensionID: TransportSequenceNumber.defaultExtensionID)
        /// Where to write the last picture decoded, as a PNG, when the receiver stops.
        public var snapshotPath: String?
        /// RTX's payload type (RFC 4588): packets of it carry a lost one again.
        public var retransmissionPayloadType: UInt8?

        public init(listen: SocketAddress, key: SRTPKey?) {
            self.listen = listen
            self.key = key
        }
    }

    /// PLIs are repeated at most this often while the decoder cannot decode.
    static let pliInterval: Duration = .milliseconds(500)
    static let reportInterval: Duration = .seconds(1)
    /// A stall is reported within a tenth of a second of its 4 s.
    static let stallCheckInterval: Duration = .milliseconds(100)

    let options: Options
    let output: EventOutput
    let clock: any MonotonicClock
    let socket: UDPSocket
    let unprotector: SRTPSession?
    let protector: SRTPSession?
    let ownSSRC = UInt32.random(in: 1...UInt32.max)

    var figures = ReceiverFigures()
    var stream: IncomingStream?
    /// Where feedback goes: the source of the last packet that authenticated (or, for plain RTP, parsed).
    /// Once one has, a datagram that does not cannot move it, so junk from elsewhere neither takes the
    /// feedback away nor turns it on a spoofed address. Until one has, the last SRTP datagram that failed
    /// authentication stands in: a receiver restarted after the sender's sequence numbers wrapped
    /// authenticates nothing, and only its reports of hearing nothing let the sender notice (§4.4).
    private(set) var peer: SocketAddress?
    private var peerAuthenticated = false
    var estimator = ArrivalRateEstimator()
    var transportWide: TransportWideReporter?
    private var decodedMeter = RateMeter()
    private var stall: ScreenStallDetector
    private var wedge: Wedge?
    private let quality: QualityMeter?
    private let snapshot: PictureSnapshot?
    var lastPLI = Instant.zero
    private let started: Instant
    private let commandLock = NSLock()
    private var commands: [String] = []
    private var stopRequested = false

    public init(options: Options, output: EventOutput, clock: any MonotonicClock = SystemClock()) throws {
        self.options = options
        self.output = output
        self.clock = clock
        socket = try UDPSocket(bindingTo: options.listen)
        if let key = options.key {
            unprotector = try SRTPSession(key: key, direction: .receiver)
            protector = try SRTPSession(key: key, direction: .sender)
        } else {
            unprotector = nil
            protector = nil
        }
        started = clock.now
        stall = ScreenStallDetector(startedAt: started)
        wedge = options.wedge.map(Wedge.init(mode:))
        quality = options.quality.map(QualityMeter.init(source:))
        snapshot = options.snapshotPath.map { _ in PictureSnapshot() }
        let ssrc = ownSSRC
        transportWide = options.transportWide.map { TransportWideReporter(sequence: $0, senderSSRC: ssrc) }
    }

    public var localAddress: SocketAddress { socket.localAddress }

    /// A line from whoever stands in for the call client: `shareAgain [SSRC]`
    /// or `transceiver SSRC` (a new stream announced by the sender), `pli`
    /// (ask for a keyframe now), or `stop`.
    public func command(_ line: String) {
        commandLock.withLock { commands.append(line) }
    }

    public func stop() {
        commandLock.withLock { stopRequested = true }
    }

    /// Receives until the duration is up or `stop` is called.
    public func run() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        // Counted from the start, not from when this thread first reads the clock: a manual
        // clock may have moved on before it does.
        var nextReport = started + ScreenReceiver.reportInterval
        var nextStallCheck = started + ScreenReceiver.stallCheckInterval
        var nextTransportFeedback = started + TransportWideReporter.interval
        while true {
            let (pending, stopping) = commandLock.withLock { () -> ([String], Bool) in
                defer { commands.removeAll() }
                return (commands, stopRequested)
            }
            if stopping { break }
            pending.forEach(handleCommand)
            let now = clock.now
            if let d = options.duration, (now - started).inSeconds >= d { break }
            if now >= nextStallCheck {
                for action in stall.tick(now: now) { perform(action) }
                nextStallCheck = now + ScreenReceiver.stallCheckInterval
            }
            if now >= nextReport {
                tick(now: now)
                nextReport = nextReport + ScreenReceiver.reportInterval
            }
            if now >= nextTransportFeedback {
                sendTransportFeedback()
                nextTransportFeedback = now + TransportWideReporter.interval
            }
            if let wedgeAfter = options.wedge.map({ _ in options.wedgeAfter }), wedge?.active == false,
               !wedgeEngaged, (now - started).inSeconds >= wedgeAfter {
                wedge?.engage(ssrc: stream?.ssrc)
                wedgeEngaged = true
                wedgeMended = false
                output.event("wedge", [("state", .string("engaged")), ("mode", .string(options.wedge!.rawValue)),
                                       ("t", .double((now - started).inSeconds))],
                             human: "decoder wedged (\(options.wedge!.rawValue))")
            }
            releaseExpired(now: now)
            guard let received = try? socket.receive(into: &buffer, timeout: .milliseconds(20)) else { continue }
            // When it came in, not when this thread, busy decoding the frame before, got to it: the
            // transport-wide feedback's arrival times are the path's, not this receiver's.
            handleDatagram(&buffer, count: received.count, from: received.from, now: clock.now - received.waited)
        }
        sendGoodbye()
        socket.close()
        quality?.stop()
        writeSnapshot()
    }

    /// The picture of what arrived, for a person to look at.
    private func writeSnapshot() {
        guard let snapshot, let path = options.snapshotPath else { return }
        do throws(CodecError) {
            try snapshot.writePNG(to: path)
            output.event("snapshot", [("path", .string(path)), ("width", .int(snapshot.width)), ("height", .int(snapshot.height))],
                         human: "The last picture that arrived (\(snapshot.width)×\(snapshot.height)) is in \(path)")
        } catch {
            output.event("snapshot", [("path", .string(path)), ("error", .string(error.detail))],
                         human: "No picture written to \(path): \(error.detail)")
        }
    }

    private var wedgeEngaged = false
    /// When a keyframe was asked for on stdin, to time the answer.
    private var keyframeAskedAt: Instant?
    private var wedgeMended = false

    private func handleCommand(_ line: String) {
        if line.hasPrefix("{") {
            handleEvent(line)
            return
        }
        let words = line.split(separator: " ").map(String.init)
        switch words.first {
        case "shareAgain":
            wedge?.shareAgainAnnounced(ssrc: words.count > 1 ? UInt32(words[1]) : nil)
            output.log(.info, "screen", "share-again announced")
        case "transceiver":
            output.log(.info, "screen", "new stream announced: SSRC \(words.dropFirst().joined(separator: " "))")
        case "pli":
            lastPLI = .zero
            keyframeAskedAt = clock.now
            requestKeyframe(now: clock.now, reason: "asked on stdin")
        case "stop":
            stopRequested = true
        default:
            output.log(.warning, "screen", "unknown command \"\(line)\"")
        }
    }

    /// A sender event relayed unchanged by the stand-in call client: a
    /// share-again's new stream is what mends a sticky wedge.
    private func handleEvent(_ line: String) {
        guard let value = try? JSONParser.parse(line), value["event"]?.stringValue == "transceiver" else { return }
        let ssrc = value["ssrc"]?.intValue.flatMap { UInt32(exactly: $0) }
        output.log(.info, "screen", "new stream announced: SSRC \(ssrc.map(String.init) ?? "?")")
        if value["reason"]?.stringValue == "shareAgain" {
            wedge?.shareAgainAnnounced(ssrc: ssrc)
        }
    }

    /// Feedback goes to `address` from now on: called only for a packet that authenticated and parsed.
    func latch(_ address: SocketAddress) {
        peer = address
        peerAuthenticated = true
    }

    /// An SRTP datagram that failed authentication: it stands in for the peer only while none has authenticated.
    func latchUntilAuthenticated(_ address: SocketAddress) {
        if !peerAuthenticated { peer = address }
    }

    /// One datagram from `from`: counted and dropped unless it authenticates and parses.
    func handleDatagram(_ buffer: inout [UInt8], count: Int, from: SocketAddress, now: Instant) {
        let kind = buffer.withUnsafeBytes { MuxedPacketKind.classify(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        switch kind {
        case .rtp: handleRTP(&buffer, count: count, from: from, now: now)
        case .rtcp: handleRTCP(&buffer, count: count, from: from, now: now)
        case nil: figures.malformed += 1
        }
    }

    private func handleRTP(_ buffer: inout [UInt8], count: Int, from: SocketAddress, now: Instant) {
        var length = count
        if let unprotector {
            guard let plain = try? unprotector.unprotectRTP(&buffer, length: count) else {
                figures.srtpFailures += 1
                latchUntilAuthenticated(from)
                return
            }
            length = plain
        }
        guard let packet = try? buffer.withUnsafeBytes({ try RTPPacket.parse(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }) else {
            figures.malformed += 1
            return
        }
        latch(from)
        figures.packets += 1
        estimator.packetArrived(bytes: length, at: now)
        buffer.withUnsafeBytes { transportWide?.packetArrived(UnsafeRawBufferPointer(rebasing: $0[0..<length]), at: now) }
        if let rtx = options.retransmissionPayloadType, packet.header.payloadType == rtx {
            receiveRetransmission(buffer, length: length, now: now)
            return
        }
        let header = packet.header
        if stream?.ssrc != header.ssrc {
            beginStream(ssrc: header.ssrc, now: now)
        }
        guard stream != nil else { return }
        stream!.payloadType = header.payloadType
        let lost = stream!.record(header, arrival: now)
        if !lost.isEmpty { sendNACK(lost, mediaSSRC: header.ssrc) }
        let sendTime = buffer.withUnsafeBytes { AbsoluteSendTime.read(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        let held = ReorderBuffer.Packet(bytes: Array(buffer[0..<length]), payloadRange: packet.payloadRange, header: header,
                                        arrival: now, sendTime: sendTime)
        depacketize(stream!.reorder.insert(held), now: now)
    }

    /// An RTX packet: the original it carries goes on as if it had come the
    /// first time, on the stream being received (RTX names no media SSRC; the
    /// SSRC group in the SDP pairs them, and one stream is received at a time).
    private func receiveRetransmission(_ buffer: [UInt8], length: Int, now: Instant) {
        guard let current = stream, let payloadType = current.payloadType,
              let original = try? buffer.withUnsafeBytes({
                  try RetransmissionPacket.unwrap(UnsafeRawBufferPointer(rebasing: $0[0..<length]), payloadType: payloadType, ssrc: current.ssrc)
              }),
              let packet = try? RTPPacket.parse(original) else {
            figures.malformed += 1
            return
        }
        figures.retransmissionsReceived += 1
        _ = stream!.record(packet.header, arrival: now)
        let sendTime = original.withUnsafeBytes { AbsoluteSendTime.read($0) }
        let held = ReorderBuffer.Packet(bytes: original, payloadRange: packet.payloadRange, header: packet.header,
                                        arrival: now, sendTime: sendTime)
        depacketize(stream!.reorder.insert(held), now: now)
    }

    /// Packets a gap held back too long go on without the lost one.
    func releaseExpired(now: Instant) {
        guard stream != nil else { return }
        depacketize(stream!.reorder.expire(now: now), now: now)
    }

    private func depacketize(_ packets: [ReorderBuffer.Packet], now: Instant) {
        for p in packets {
            guard var current = stream, current.ssrc == p.header.ssrc else { return }
            if p.header.padding && p.payloadRange.isEmpty {
                current.depacketizer.skipPadding(sequenceNumber: p.header.sequenceNumber)
                stream = current
                continue
            }
            let oversized = current.depacketizer.oversizedFrames
            let frame = p.bytes.withUnsafeBytes { raw in
                current.depacketizer.push(UnsafeRawBufferPointer(rebasing: raw[p.payloadRange]), sequenceNumber: p.header.sequenceNumber,
                                          timestamp: p.header.timestamp, marker: p.header.marker)
            }
            figures.framesOversized += current.depacketizer.oversizedFrames - oversized
            stream = current
            if let frame {
                estimator.frameArrived(rtpTimestamp: frame.timestamp, sendTime: p.sendTime, at: p.arrival)
                handleFrame(frame, ssrc: p.header.ssrc, now: now)
            }
        }
    }

    private func beginStream(ssrc: UInt32, now: Instant) {
        if stream != nil { figures.ssrcChanges += 1 }
        do {
            stream = try IncomingStream(ssrc: ssrc, codec: options.codec)
        } catch {
            output.log(.error, "receiver", "\(error)")
            return
        }
        figures.ssrc = ssrc
        stall.newStream(now: now)
        output.log(.info, "receiver", "new stream, SSRC \(ssrc): a new decoder")
    }

    private func handleFrame(_ frame: DepacketizedFrame, ssrc: UInt32, now: Instant) {
        figures.framesReceived += 1
        guard frame.isComplete else {
            figures.framesIncomplete += 1
            stream?.needsKeyframe = true
            requestKeyframe(now: now, reason: "lost packets in a frame")
            return
        }
        if frame.isKeyframe { figures.keyframes += 1 }
        if wedge?.swallows(ssrc: ssrc, isKeyframe: frame.isKeyframe) == true {
            figures.framesSwallowed += 1
            return
        }
        if stream?.needsKeyframe == true && !frame.isKeyframe {
            requestKeyframe(now: now, reason: "waiting for a keyframe")
            return
        }
        let picture = frame.data.withUnsafeBytes { stream?.decoder.decode($0) }
        guard let picture else {
            stream?.needsKeyframe = true
            requestKeyframe(now: now, reason: "the decoder could not decode")
            return
        }
        stream?.needsKeyframe = false
        figures.framesDecoded += 1
        if frame.isKeyframe, let asked = keyframeAskedAt {
            keyframeAskedAt = nil
            output.event("keyframe", [("latencyMs", .double((now - asked).inMilliseconds))],
                         human: "keyframe \(Int((now - asked).inMilliseconds)) ms after the PLI")
        }
        if wedgeEngaged && !wedgeMended {
            wedgeMended = true
            output.event("wedge", [("state", .string("mended")), ("t", .double((now - started).inSeconds))],
                         human: "decoding again after the wedge")
        }
        figures.width = picture.width
        figures.height = picture.height
        snapshot?.keep(picture)
        decodedMeter.record(at: now)
        if let sourceWidth = options.sourceWidth ?? options.quality?.width,
           let stamp = FrameStamp.read(luma: picture.luma, stride: picture.lumaStride, width: picture.width, sourceWidth: sourceWidth) {
            figures.stampedFrames += 1
            figures.lastStamp = stamp
            quality?.offer(frame: stamp, luma: picture.luma, stride: picture.lumaStride, width: picture.width, height: picture.height)
        }
        stream?.decoded += 1
        if figures.framesDecoded == 1 {
            // A receiver that joins (or restarts) says at once that its view is fine,
            // so a notice left from an earlier process of its is cleared.
            perform(.reportCleared(reason: "first picture decoded"))
        }
        for action in stall.decoded(count: stream?.decoded ?? 0, now: now) { perform(action) }
    }

    private func tick(now: Instant) {
        figures.decodedFPS = decodedMeter.rate(at: now)
        figures.bitrate = estimator.incomingBitrate(at: now)
        sendReceiverReport(now: now)
        output.event("figures", figuresJSON, human: figures.line)
    }

    var figuresJSON: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("packets", .int(figures.packets)), ("framesReceived", .int(figures.framesReceived)),
            ("framesDecoded", .int(figures.framesDecoded)), ("framesIncomplete", .int(figures.framesIncomplete)),
            ("framesSwallowed", .int(figures.framesSwallowed)), ("framesOversized", .int(figures.framesOversized)),
            ("width", .int(figures.width)), ("height", .int(figures.height)), ("decodedFps", .double(figures.decodedFPS)),
            ("keyframes", .int(figures.keyframes)), ("plisSent", .int(figures.plisSent)), ("nacksSent", .int(figures.nacksSent)),
            ("retransmissionsReceived", .int(figures.retransmissionsReceived)),
            ("rembsSent", .int(figures.rembsSent)), ("transportFeedbackSent", .int(figures.transportFeedbackSent)),
            ("srtpFailures", .int(figures.srtpFailures)), ("malformed", .int(figures.malformed)),
            ("ssrc", .int(Int(figures.ssrc))), ("ssrcChanges", .int(figures.ssrcChanges)), ("bitrate", .int(figures.bitrate)),
            ("lostPackets", .int(figures.lostPackets)), ("stampedFrames", .int(figures.stampedFrames)),
        ]
        if let s = figures.lastStamp { fields.append(("lastStamp", .int(Int(s)))) }
        if let q = quality?.summary {
            // Running means over the measured frames; 0 until one is measured.
            fields += [("qualityFrames", .int(q.frames)), ("qualityDropped", .int(q.dropped)),
                       ("ssim", .double(q.ssim)), ("psnr", .double(q.psnr)),
                       ("ssimText", .double(q.ssimText)), ("psnrText", .double(q.psnrText))]
        }
        return fields
    }

    private func perform(_ action: ScreenStallDetector.Action) {
        switch action {
        case .reportStalled(let reason):
            output.event("report", [("screenStalled", .bool(true)), ("reason", .string(reason))] + figuresJSON,
                         human: "screenStalled: true (\(reason))")
        case .reportCleared(let reason):
            output.event("report", [("screenStalled", .bool(false)), ("reason", .string(reason))] + figuresJSON,
                         human: "screenStalled: false (\(reason))")
        case .reportExpired(let reason):
            // Withdrawn, not cleared: the view is still stalled (docs/behaviour.md §5.4, §6.1).
            output.event("report", [("screenStalled", .bool(true)), ("expired", .bool(true)), ("reason", .string(reason))]
                         + figuresJSON, human: "screenStalled report withdrawn (\(reason))")
        case .rehandPicture(let reason):
            output.log(.info, "screen", "the last picture handed to the view again: \(reason)")
        case .logStatistics:
            output.log(.info, "screen", "still stalled; arriving: " + figures.line)
        }
    }
}
