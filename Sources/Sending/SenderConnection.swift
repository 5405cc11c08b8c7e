import Events
import Encoders
import Encoding
import Foundation
import Media
import Congestion
import RTP
import SRTP
import Transport
import Synchronization
import ControlProtocol

/// Everything the share does for one receiver: its encoder (on a thread of
/// its own), its pacer and SRTP protection (a second thread), and the
/// feedback it reads back (a third). Removing or losing one receiver
/// touches no other.
public final class SenderConnection: @unchecked Sendable {
    // Safety: mutable state below `lock` is only touched while holding it;
    // a transceiver only by the encode thread it was handed to; the SRTP
    // sessions each on the one thread named beside them.
    public let config: ReceiverConfig
    let clock: any MonotonicClock
    let output: EventOutput
    let pool: SurfacePool
    let socket: UDPSocket
    let protector: SRTPSession?         // send thread
    let feedbackUnprotector: SRTPSession? // feedback thread
    let queue: PacketQueue
    let history = Mutex(PacketHistory())
    private let latestFrame: @Sendable () -> Surface?

    let lock: ClockCondition
    var state: ConnectionState
    /// Threads still running, and those abandoned (an encode call that never returned).
    private var liveThreads: Set<String> = []
    private var abandonedThreads: Set<String> = []
    let fault: EncoderFault?

    package init(config: ReceiverConfig, share: ShareParameters, clock: any MonotonicClock, output: EventOutput,
         pool: SurfacePool, fault: EncoderFault? = nil, latestFrame: @escaping @Sendable () -> Surface?) throws {
        self.fault = fault
        self.config = config
        self.clock = clock
        self.output = output
        self.pool = pool
        self.latestFrame = latestFrame
        let bind = config.bind ?? .bindAddress(reaching: [config.destination] + (config.rtcpDestination.map { [$0] } ?? []))
        socket = try UDPSocket(bindingTo: bind)
        if let srtp = config.srtp {
            protector = try SRTPSession(key: srtp, direction: .sender)
            feedbackUnprotector = try SRTPSession(key: srtp, direction: .receiver)
        } else {
            protector = nil
            feedbackUnprotector = nil
        }
        lock = clock.makeCondition()
        let ssrc = config.ssrc ?? UInt32.random(in: 1...UInt32.max)
        let first = Transceiver(ssrc: ssrc, payloadType: config.payloadType, codec: config.codec,
                                extensions: config.headerExtensions, generation: 0, firstSequence: config.firstSequence,
                                retransmission: config.retransmission)
        state = ConnectionState(share: share, transceiver: first, destination: config.destination, cap: config.bitrateCap,
                                transportWide: config.headerExtensions.transportSequenceNumber != nil,
                                probePacketSize: first.paddingPacketSize + SenderConnection.overhead(of: config),
                                started: clock.now)
        queue = PacketQueue(rate: state.pacingRate(now: clock.now), clock: clock)
    }

    public var localAddress: SocketAddress { socket.localAddress }

    /// What each RTP packet grows by on the way to the bottleneck: the SRTP
    /// trailer, and the UDP and IP headers, which a link carries as well.
    static func overhead(of config: ReceiverConfig) -> Int {
        (config.srtp?.profile.rtpTrailerLength ?? 0) + (config.destination.family == .ipv4 ? 28 : 48)
    }

    var packetOverhead: Int { SenderConnection.overhead(of: config) }
    public var ssrc: UInt32 { lock.withLock { state.ssrc } }
    /// The RTX stream's SSRC, where the receiver negotiated RTX.
    public var retransmissionSSRC: UInt32? { lock.withLock { state.transceiver.retransmission?.ssrc } }

    package func start() {
        startEncoder(FrameEncoder(codec: config.codec, generation: 0))
        spawn("send-\(config.id)") { [self] in sendLoop() }
        spawn("feedback-\(config.id)") { [self] in feedbackLoop() }
    }

    private func startEncoder(_ encoder: FrameEncoder) {
        spawn("encode-\(config.id)-\(encoder.generation)") { [self] in encodeLoop(encoder) }
    }

    private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        lock.withLock { _ = liveThreads.insert(name) }
        let thread = Thread { [self] in
            body()
            lock.withLock {
                liveThreads.remove(name)
                lock.broadcast()
            }
        }
        thread.name = name
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Replaces the encode thread: the old one, if it is stuck inside an
    /// encode call, is abandoned (counted), never waited for.
    /// Call with `lock` held, after the transceiver has begun `generation`.
    private func abandonEncoder(before generation: Int) {
        abandonBusyEncoder()
        state.encodeGeneration = generation
        state.encodeBusySince = nil
        lock.broadcast()
    }

    /// Recovery's fresh encoder: a new x264 instance on a new thread, same
    /// SSRC, the screen scaled by `shrink.factor` until `shrink.until`.
    public func freshEncoder(shrink: (factor: Double, until: Instant), reason: String) {
        let encoder = lock.withLock { () -> FrameEncoder in
            state.shrink = shrink
            state.gate.request(at: clock.now)
            let generation = state.transceiver.beginGeneration()
            abandonEncoder(before: generation)
            return FrameEncoder(codec: config.codec, generation: generation)
        }
        output.log(.info, "screen", "\(config.displayName): fresh encoder (\(reason))")
        startEncoder(encoder)
    }

    /// The current encode thread, if it is inside an encode call, is not waited for again. Call with `lock` held.
    private func abandonBusyEncoder() {
        let current = "encode-\(config.id)-\(state.encodeGeneration)"
        if liveThreads.contains(current) && state.encodeBusySince != nil {
            abandonedThreads.insert(current)
            state.abandonedEncoders += 1
        }
    }

    public func restoreFullSize() {
        lock.withLock { state.shrink = nil }
    }

    /// A new transceiver: a new SSRC, sequence and encoder, so a new decoder
    /// at the receiver. Returns the new SSRC, which the call client must tell the peer.
    @discardableResult
    public func newTransceiver(reason: String) -> UInt32 {
        let (ssrc, encoder) = lock.withLock { () -> (UInt32, FrameEncoder) in
            var ssrc = UInt32.random(in: 1...UInt32.max)
            while ssrc == state.ssrc { ssrc = UInt32.random(in: 1...UInt32.max) }
            let generation = state.encodeGeneration + 1
            state.transceiver.retire()
            // A new stream's RTX is new too: the call client is told both SSRCs.
            state.transceiver = Transceiver(ssrc: ssrc, payloadType: config.payloadType, codec: config.codec,
                                            extensions: config.headerExtensions, generation: generation,
                                            retransmission: config.retransmission.map { .init(payloadType: $0.payloadType) })
            state.transceivers += 1
            state.reporterHearsUs = false
            state.gate.request(at: clock.now)
            abandonEncoder(before: generation)
            queue.clear()
            history.withLock { $0.clear() }
            return (ssrc, FrameEncoder(codec: config.codec, generation: generation))
        }
        output.log(.info, "screen", "\(config.displayName): new transceiver, SSRC \(ssrc) (\(reason))")
        startEncoder(encoder)
        return ssrc
    }

    /// The receiver moved (a relay renewed, an address changed): send there from now on.
    public func setDestination(_ destination: SocketAddress) {
        lock.withLock { state.destination = destination }
    }

    /// Stops every thread, sends RTCP BYE, and releases held surfaces. An encode call
    /// still running is abandoned, not waited for: a hung encoder holds up neither a
    /// receiver's removal nor the end of the share (its thread exits if the call returns).
    package func stop() {
        lock.withLock {
            state.running = false
            abandonBusyEncoder()
            lock.broadcast()
        }
        queue.close()
        lock.withLock {
            while !liveThreads.subtracting(abandonedThreads).isEmpty { lock.wait() }
        }
        sendGoodbye()
        lock.withLock {
            if let pending = state.pending {
                pool.release(pending)
                state.pending = nil
            }
        }
        socket.close()
    }

    // MARK: Frames in

    /// A new capture: it replaces any frame still waiting (the newest wins;
    /// a queue of old frames would only add delay).
    func offer(_ surface: Surface) {
        pool.hold(surface)
        lock.withLock {
            if let old = state.pending {
                pool.release(old)
                state.framesSuperseded += 1
            }
            state.pending = surface
            state.framesIn += 1
            lock.broadcast()
        }
    }

    /// A keyframe recovery or the call client asks for: always made, at most
    /// one per 300 ms (docs/behaviour.md §7.4).
    public func requestKeyframe(reason: String) {
        lock.withLock {
            state.keyframesAsked += 1
            state.gate.request(at: clock.now, by: .recovery)
            lock.broadcast()
        }
        output.log(.debug, "rtp", "\(config.displayName): keyframe asked for (\(reason))")
    }

    /// A keyframe the receiver asks for (PLI, FIR): left to the repair of
    /// the keyframe in flight when one is, and a second apart while the link
    /// is the limit (docs/behaviour.md §7.4).
    func receiverAskedForKeyframe(reason: String) {
        let queued = queue.delay
        lock.withLock {
            state.keyframesAsked += 1
            state.gate.request(at: clock.now, by: .receiver, repairWindow: state.repairWindow(queued: queued))
            lock.broadcast()
        }
        output.log(.debug, "rtp", "\(config.displayName): keyframe asked for (\(reason))")
    }

    // MARK: Encode thread

    private func encodeLoop(_ encoder: FrameEncoder) {
        let generation = encoder.generation
        var lastEncode = clock.now
        while true {
            lock.lock()
            var surface: Surface?
            var isRepeat = false
            while state.running && state.encodeGeneration == generation {
                let now = clock.now
                if let p = state.pending {
                    surface = p
                    state.pending = nil
                    break
                }
                // A keyframe from the last frame at most once a frame period:
                // an encoder that gives nothing back is not called in a loop.
                let framePeriod = Duration.nanoseconds(1_000_000_000 / Int64(max(1, state.share.fps)))
                let linkLimited = state.linkLimited(at: now)
                let keyframeDue = state.gate.isPending && state.gate.shouldEncodeKeyframe(at: now, linkLimited: linkLimited)
                    && now - lastEncode >= framePeriod
                let repeatDue = now - lastEncode >= ConnectionState.stillRepeatInterval
                if keyframeDue || repeatDue, let latest = latestFrame() {
                    surface = latest
                    isRepeat = true
                    state.repeatsTaken += 1
                    break
                }
                var wake = lastEncode + ConnectionState.stillRepeatInterval
                if let k = state.gate.earliestKeyframe(linkLimited: linkLimited), k < wake { wake = max(k, lastEncode + framePeriod, now) }
                // Due, but no frame has been captured yet: the first capture wakes this thread.
                if wake <= now { wake = now + ConnectionState.stillRepeatInterval }
                lock.wait(until: wake)
            }
            guard state.running, state.encodeGeneration == generation, let frame = surface else {
                lock.unlock()
                if let surface { pool.release(surface) }
                encoder.close()
                return
            }
            let now = clock.now
            let transceiver = state.transceiver
            let wantKeyframe = state.gate.shouldEncodeKeyframe(at: now, linkLimited: state.linkLimited(at: now))
            let (plan, fps) = state.plan(sourceWidth: frame.width, sourceHeight: frame.height, codec: config.codec, now: now, levelLimit: config.levelLimit)
            let tooSoon = !isRepeat && !wantKeyframe && fps < state.share.fps && now - lastEncode < .nanoseconds(1_000_000_000 / Int64(fps))
            // docs/behaviour.md §7.5: a frame is held back, not queued behind
            // seconds of others; the newest capture goes when the queue drains.
            let held = !tooSoon && queue.delay > ConnectionState.maxQueueDelay
            state.encodeBusySince = tooSoon || held ? nil : now
            if tooSoon { state.framesSkippedForRate += 1 }
            if held { state.framesHeldForLink += 1 }
            lock.unlock()
            defer { pool.release(frame) }
            if tooSoon { continue }
            if held {
                // A repeat or keyframe from the last frame tries again a frame period on.
                if isRepeat { lastEncode = now }
                continue
            }

            if !isRepeat && FrameLateness.isLate(captureTime: frame.captureTime, now: now) {
                pool.countLateDrop()
                lock.withLock {
                    state.framesDroppedLate += 1
                    state.encodeBusySince = nil
                }
                continue
            }
            if generation == 0, let fault, now - state.started >= fault.after {
                injectFault(fault, generation: generation)
                lastEncode = clock.now
                continue
            }
            encode(frame, with: encoder, on: transceiver, settings: plan, keyframe: wantKeyframe, isRepeat: isRepeat, started: now)
            lastEncode = clock.now
        }
    }

    /// The first encoder's fault: it produces nothing, or its call never returns.
    private func injectFault(_ fault: EncoderFault, generation: Int) {
        switch fault {
        case .stops:
            lock.withLock { state.encodeBusySince = nil }
        case .hangs:
            // Never returns, as a hung encode call does not: nothing may wait for it.
            lock.withLock {
                while true { lock.wait() }
            }
        }
    }

    private func encode(_ frame: Surface, with encoder: FrameEncoder, on transceiver: Transceiver, settings: EncoderSettings,
                        keyframe: Bool, isRepeat: Bool, started: Instant) {
        do {
            try encoder.configure(settings)
            let timestamp = transceiver.timestamp(for: isRepeat ? started : frame.captureTime)
            if !isRepeat {
                lock.withLock { state.glassToPacket.frameStarted(timestamp: timestamp, captured: frame.captureTime) }
            }
            // Each slice goes to the transceiver as x264 finishes it, from x264's threads.
            let accepted = Atomic(false)
            let queue = self.queue
            let encoded = try encoder.encode(frame, timestamp: timestamp, keyframe: keyframe) { part, endsFrame, isKeyframe in
                if transceiver.send(part, endsFrame: endsFrame, keyframe: isKeyframe, timestamp: timestamp,
                                    generation: encoder.generation, into: queue) {
                    accepted.store(true, ordering: .relaxed)
                }
            }
            let sent = accepted.load(ordering: .relaxed)
            let now = clock.now
            lock.withLock {
                guard state.encodeGeneration == encoder.generation else { return }
                state.encodeBusySince = nil
                state.encoderSettings = settings
                state.encodeTime.record(Int((now - started).nanoseconds / 1000), at: now)
                guard let encoded, sent else { return }
                state.encodedMeter.record(at: now)
                state.framesEncoded += 1
                if isRepeat { state.stillRepeats += 1 }
                if encoded.isKeyframe {
                    state.gate.keyframeEncoded(at: now)
                    state.keyframesMade += 1
                }
                state.encodedSize = (settings.width, settings.height)
            }
        } catch {
            lock.withLock {
                state.encodeBusySince = nil
                state.encoderErrors += 1
            }
            output.log(.error, "screen", "\(config.displayName): \(error)")
        }
    }

    // MARK: Send thread (pacer, SRTP, SR)

    private func sendLoop() {
        var buffer = [UInt8](repeating: 0, count: PacketQueue.slotSize + SRTPSession.maximumTrailerLength)
        var nextReport = clock.now + ConnectionState.senderReportInterval
        while lock.withLock({ state.running }) {
            let now = clock.now
            if now >= nextReport {
                sendReport()
                nextReport = now + ConnectionState.senderReportInterval
            }
            let (rate, limited, probe, transceiver) = lock.withLock {
                (state.pacingRate(now: now), state.bandwidth.target(at: now).limit.isPath, state.bandwidth.pendingProbe(at: now),
                 state.transceiver)
            }
            if let probe {
                transceiver.sendPadding(count: probe.packetCount, cluster: probe.id, bitrate: probe.bitrate, into: queue)
            }
            queue.setRate(rate, burstBudget: Pacer.burstBudget(linkIsTheLimit: limited))
            switch queue.pop(into: &buffer, now: now) {
            case .packet(let length, let info):
                send(&buffer, length: length, info: info)
            case .wait(let until):
                queue.wait(until: min(until, nextReport))
            case .empty:
                queue.wait(until: nextReport)
            }
        }
    }

    /// Stamps, protects and sends one packet. A first send is stamped with
    /// its send time and transport-wide sequence number and kept, stamped,
    /// for NACKs; a retransmission is those kept bytes unchanged, so SRTP
    /// never covers two different packets under one (SSRC, sequence number)
    /// (docs/behaviour.md §7.2); an RTX packet is a new one of its own
    /// stream, stamped afresh and not kept.
    private func send(_ buffer: inout [UInt8], length: Int, info: PacketInfo) {
        let wireSize = length + packetOverhead
        let stamped = clock.now
        if info.kind == .retransmission {
            lock.withLock { state.bandwidth.onPacketResent(size: wireSize, at: stamped) }
        } else {
            let kind: SentPacketLog.Kind
            switch info.kind {
            case .probe(let cluster): kind = .probe(cluster: cluster)
            case .rtx: kind = .retransmission
            case .media, .retransmission: kind = .media
            }
            let transportSequence = lock.withLock {
                state.bandwidth.onPacketSent(size: wireSize, at: stamped, kind: kind, sequenceNumber: info.sequence)
            }
            buffer.withUnsafeMutableBytes { bytes in
                let packet = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length])
                config.headerExtensions.stamp(packet, at: stamped, transportSequenceNumber: transportSequence)
                if info.kind != .rtx {
                    history.withLock { _ = $0.store(UnsafeRawBufferPointer(packet), sequenceNumber: info.sequence, at: stamped) }
                }
            }
        }
        var wireLength = length
        if let protector {
            guard let protected = try? protector.protectRTP(&buffer, length: length) else {
                lock.withLock { state.protectErrors += 1 }
                return
            }
            wireLength = protected
        }
        let now = clock.now
        do {
            let destination = lock.withLock { state.destination }
            try buffer.withUnsafeBytes { try socket.send(UnsafeRawBufferPointer(rebasing: $0[0..<wireLength]), to: destination) }
            lock.withLock {
                state.bitrateMeter.record(wireLength * 8, at: now)
                switch info.kind {
                case .retransmission, .rtx:
                    return
                case .probe:
                    state.probePacketsSent += 1
                    state.countSent(info)
                case .media:
                    state.countSent(info)
                    if info.marker { frameLeft(info, at: now) }
                }
            }
        } catch {
            lock.withLock { state.sendErrors += 1 }
        }
    }

    /// The last packet of a frame left. Call with `lock` held.
    private func frameLeft(_ info: PacketInfo, at now: Instant) {
        if info.keyframe { state.gate.keyframeSent(at: now) }
        state.glassToPacket.lastPacketSent(timestamp: info.timestamp, at: now)
        state.framesSent += 1
        state.sentMeter.record(at: now)
    }
}
