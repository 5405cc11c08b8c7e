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

/// Everything the share does for one receiver but the encoding, which its
/// layer does for every receiver on it (docs/behaviour.md §12): its
/// transceiver, its pacer and SRTP protection (a thread of its own), and the
/// feedback it reads back (a second). Removing or losing one receiver
/// touches no other.
public final class SenderConnection: @unchecked Sendable {
    // Safety: mutable state below `lock` is only touched while holding it;
    // the SRTP sessions each on the one thread named beside them. A layer
    // may take `lock` while holding its own; this never calls a layer with
    // `lock` held.
    public let config: ReceiverConfig
    let clock: any MonotonicClock
    let output: EventOutput
    let socket: UDPSocket
    let protector: SRTPSession?         // send thread
    let feedbackUnprotector: SRTPSession? // feedback thread
    let queue: PacketQueue
    let history = Mutex(PacketHistory())

    let lock: ClockCondition
    var state: ConnectionState
    /// The layer whose encoder feeds this receiver, set by the layer on joining.
    var layer: EncoderLayer?
    private let threads: ThreadGroup

    package init(config: ReceiverConfig, clock: any MonotonicClock, output: EventOutput) throws {
        self.config = config
        self.clock = clock
        self.output = output
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
        threads = ThreadGroup(clock: clock)
        let ssrc = config.ssrc ?? UInt32.random(in: 1...UInt32.max)
        let first = Transceiver(ssrc: ssrc, payloadType: config.payloadType, codec: config.codec,
                                extensions: config.headerExtensions, firstSequence: config.firstSequence,
                                retransmission: config.retransmission)
        state = ConnectionState(transceiver: first, destination: config.destination, cap: config.bitrateCap,
                                transportWide: config.headerExtensions.transportSequenceNumber != nil,
                                probePacketSize: first.paddingPacketSize + SenderConnection.overhead(of: config))
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
        threads.spawn("send-\(config.id)") { [self] in sendLoop() }
        threads.spawn("feedback-\(config.id)") { [self] in feedbackLoop() }
    }

    private var currentLayer: EncoderLayer? { lock.withLock { layer } }

    /// Recovery's fresh encoder: a new codec instance for this receiver's
    /// layer, same SSRC, the screen scaled by `shrink.factor` until `shrink.until`.
    public func freshEncoder(shrink: (factor: Double, until: Instant), reason: String) {
        output.log(.info, "screen", "\(config.displayName): fresh encoder (\(reason))")
        currentLayer?.freshEncoder(shrink: shrink, reason: reason)
    }

    public func restoreFullSize() {
        currentLayer?.restoreFullSize()
    }

    /// A new transceiver: a new SSRC and sequence, so a new decoder at the
    /// receiver, which starts at a keyframe its layer makes now. Returns the
    /// new SSRC, which the call client must tell the peer.
    @discardableResult
    public func newTransceiver(reason: String) -> UInt32 {
        let (ssrc, layer) = lock.withLock { () -> (UInt32, EncoderLayer?) in
            var ssrc = UInt32.random(in: 1...UInt32.max)
            while ssrc == state.ssrc { ssrc = UInt32.random(in: 1...UInt32.max) }
            state.transceiver.retire()
            // A new stream's RTX is new too: the call client is told both SSRCs.
            state.transceiver = Transceiver(ssrc: ssrc, payloadType: config.payloadType, codec: config.codec,
                                            extensions: config.headerExtensions, feed: state.transceiver.feed,
                                            retransmission: config.retransmission.map { .init(payloadType: $0.payloadType) })
            state.transceivers += 1
            state.reporterHearsUs = false
            queue.clear()
            history.withLock { $0.clear() }
            return (ssrc, self.layer)
        }
        output.log(.info, "screen", "\(config.displayName): new transceiver, SSRC \(ssrc) (\(reason))")
        layer?.requestKeyframe(by: .recovery)
        return ssrc
    }

    /// The receiver moved (a relay renewed, an address changed): send there from now on.
    public func setDestination(_ destination: SocketAddress) {
        lock.withLock { state.destination = destination }
    }

    /// Stops every thread and sends RTCP BYE. The layer has let this receiver go before.
    package func stop() {
        lock.withLock {
            state.running = false
            lock.broadcast()
        }
        queue.close()
        threads.waitForAll()
        sendGoodbye()
        socket.close()
    }

    // MARK: Keyframes

    /// A keyframe recovery or the call client asks for: always made, at most
    /// one per 300 ms (docs/behaviour.md §7.4).
    public func requestKeyframe(reason: String) {
        let layer = lock.withLock { () -> EncoderLayer? in
            state.keyframesAsked += 1
            return self.layer
        }
        layer?.requestKeyframe(by: .recovery)
        output.log(.debug, "rtp", "\(config.displayName): keyframe asked for (\(reason))")
    }

    /// A keyframe the receiver asks for (PLI, FIR): left to the repair of
    /// the keyframe in flight when one is, and a second apart while the link
    /// is the limit (docs/behaviour.md §7.4).
    func receiverAskedForKeyframe(reason: String) {
        let queued = queue.delay
        let (layer, window) = lock.withLock { () -> (EncoderLayer?, Duration) in
            state.keyframesAsked += 1
            state.bandwidth.onKeyframeRequest(at: clock.now)
            return (self.layer, state.repairWindow(queued: queued))
        }
        layer?.requestKeyframe(by: .receiver, repairWindow: window)
        output.log(.debug, "rtp", "\(config.displayName): keyframe asked for (\(reason))")
    }

    // MARK: What the layer asks

    /// Where a layer hands this receiver's packets (its transceiver now and its pacer's queue),
    /// and the target the receiver's estimate sets.
    struct Feed {
        let transceiver: Transceiver
        let queue: PacketQueue
        let target: SendSideBandwidthEstimator.Target
        /// The receiver has asked for a keyframe (PLI or FIR): it will ask again when it needs one.
        let asksForKeyframes: Bool
        /// Some feedback has come from the receiver: it is not a player that cannot send any.
        let heardFrom: Bool
        /// The target is kept by queueing delay (transport-wide feedback), not by loss alone.
        let seesQueueing: Bool
        /// Bits per second resent to the receiver lately.
        let resending: Double
        /// How long what is on the path will wait in its queues (transport-wide feedback only).
        let pathBacklog: Duration

        /// What a frame made now waits before it can arrive: the pacer's queue and the path's.
        var wait: Duration { queue.delay + pathBacklog }
    }

    /// `layer` feeds this receiver from now on, from its encoder `feed`'s next keyframe.
    func follow(_ layer: EncoderLayer, feed: Int) {
        lock.withLock {
            self.layer = layer
            state.transceiver.follow(feed: feed)
        }
    }

    func feedSnapshot(at now: Instant) -> Feed {
        lock.withLock {
            Feed(transceiver: state.transceiver, queue: queue, target: state.bandwidth.target(at: now),
                 asksForKeyframes: state.plisReceived + state.firsReceived > 0,
                 heardFrom: state.plisReceived + state.firsReceived > 0 || state.bandwidth.feedbackHeard,
                 seesQueueing: state.bandwidth.feedbackKind == .transportWide,
                 resending: state.retransmissionMeter.rate(at: now),
                 pathBacklog: state.bandwidth.pathBacklog(at: now))
        }
    }

    func target(at now: Instant) -> SendSideBandwidthEstimator.Target {
        lock.withLock { state.bandwidth.target(at: now) }
    }

    func linkLimited(at now: Instant) -> Bool {
        lock.withLock { state.linkLimited(at: now) }
    }

    /// A captured frame goes to the encoder: glass-to-packet starts here.
    func frameStarting(captured: Instant) {
        lock.withLock {
            state.glassToPacket.frameStarted(timestamp: state.transceiver.timestamp(for: captured), captured: captured)
        }
    }

    // MARK: Send thread (pacer, SRTP, SR)

    private func sendLoop() {
        var buffer = [UInt8](repeating: 0, count: PacketQueue.slotSize + SRTPSession.maximumTrailerLength)
        var nextReport = clock.now + ConnectionState.senderReportInterval
        var lastSent = clock.now
        while lock.withLock({ state.running }) {
            let now = clock.now
            if now >= nextReport {
                sendReport()
                resolveNacksAwaitingFeedback(now: now)
                nextReport = now + ConnectionState.senderReportInterval
            }
            let (rate, limited, probe, transceiver, keepalive) = lock.withLock {
                (state.pacingRate(now: now), state.bandwidth.target(at: now).limit.isPath, state.bandwidth.pendingProbe(at: now),
                 state.transceiver, state.receiverWaitsByTheClock ? lastSent + ConnectionState.keepaliveInterval : nil)
            }
            if let probe {
                transceiver.sendPadding(count: probe.packetCount, cluster: probe.id, bitrate: probe.bitrate, at: now, into: queue)
            }
            queue.setRate(rate, burstBudget: Pacer.burstBudget(linkIsTheLimit: limited))
            switch queue.pop(into: &buffer, now: now) {
            case .packet(let length, let info):
                send(&buffer, length: length, info: info)
                lastSent = now
            case .wait(let until):
                queue.wait(until: min(until, nextReport))
            case .empty:
                if let keepalive, now >= keepalive {
                    transceiver.sendKeepalive(at: now, into: queue)
                    lastSent = now
                } else {
                    queue.wait(until: min(keepalive ?? nextReport, nextReport))
                }
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
            case .media, .retransmission, .keepalive: kind = .media
            }
            let transportSequence = lock.withLock {
                state.bandwidth.onPacketSent(size: wireSize, at: stamped, kind: kind, sequenceNumber: info.sequence)
            }
            buffer.withUnsafeMutableBytes { bytes in
                let packet = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<length])
                config.headerExtensions.stamp(packet, at: stamped, transportSequenceNumber: transportSequence)
                if info.kind != .rtx {
                    history.withLock {
                        _ = $0.store(UnsafeRawBufferPointer(packet), sequenceNumber: info.sequence, at: stamped,
                                     transportSequenceNumber: transportSequence)
                    }
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
            let keyframeLeft = lock.withLock { () -> EncoderLayer? in
                state.bitrateMeter.record(wireLength * 8, at: now)
                switch info.kind {
                case .retransmission, .rtx:
                    return nil
                case .probe:
                    state.probePacketsSent += 1
                    state.countSent(info)
                    return nil
                case .keepalive:
                    state.keepalivesSent += 1
                    state.countSent(info)
                    return nil
                case .media:
                    state.countSent(info)
                    guard info.marker else { return nil }
                    frameLeft(info, at: now)
                    guard info.keyframe else { return nil }
                    state.bandwidth.onKeyframeSent(at: now)
                    return layer
                }
            }
            keyframeLeft?.keyframeLeft(at: now)
        } catch {
            lock.withLock { state.sendErrors += 1 }
        }
    }

    /// The last packet of a frame left. Call with `lock` held.
    private func frameLeft(_ info: PacketInfo, at now: Instant) {
        state.glassToPacket.lastPacketSent(timestamp: info.timestamp, at: now)
        state.framesSent += 1
        state.sentMeter.record(at: now)
    }
}
