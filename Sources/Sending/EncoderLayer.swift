import Events
import Encoders
import Encoding
import Foundation
import Media
import Congestion
import Synchronization
import ControlProtocol

/// One encoder, on a thread of its own, for every receiver that can take the
/// same stream (docs/behaviour.md §12): each frame is encoded once and its
/// parts handed to each member's transceiver, which numbers, paces and
/// protects them for that receiver alone. A keyframe any member asks for is
/// one IDR for all of them.
///
/// Lock order: a layer's lock may be held while a member's is taken, never
/// the other way round.
package final class EncoderLayer: @unchecked Sendable {
    // Safety: mutable state below `lock` is only touched while holding it;
    // a FrameEncoder only by the encode thread it was handed to.
    let id: Int
    let key: LayerKey
    let clock: any MonotonicClock
    let output: EventOutput
    let pool: SurfacePool
    private let latestFrame: @Sendable () -> Surface?
    let fault: EncoderFault?

    let lock: ClockCondition
    var state: LayerState
    private(set) var members: [SenderConnection] = []
    /// The encoder generation transceivers take parts from, unique across layers.
    private(set) var feed: Int
    private let threads: ThreadGroup

    private static let feeds = Atomic(0)
    private static func nextFeed() -> Int { feeds.add(1, ordering: .relaxed).newValue }

    init(id: Int, key: LayerKey, share: ShareParameters, clock: any MonotonicClock, output: EventOutput, pool: SurfacePool,
         fault: EncoderFault?, latestFrame: @escaping @Sendable () -> Surface?) {
        self.id = id
        self.key = key
        self.clock = clock
        self.output = output
        self.pool = pool
        self.fault = fault
        self.latestFrame = latestFrame
        lock = clock.makeCondition()
        threads = ThreadGroup(clock: clock)
        state = LayerState(share: share, started: clock.now)
        feed = EncoderLayer.nextFeed()
    }

    func start() {
        startEncoder(FrameEncoder(codec: key.codec, generation: 0), feed: lock.withLock { feed })
    }

    /// `member` takes this layer's stream from its next keyframe, which is asked for now.
    func join(_ member: SenderConnection) {
        lock.withLock {
            members.append(member)
            member.follow(self, feed: feed)
            state.gate.request(at: clock.now)
            lock.broadcast()
        }
    }

    /// Returns whether the layer has no members left.
    func leave(_ member: SenderConnection) -> Bool {
        lock.withLock {
            members.removeAll { $0 === member }
            return members.isEmpty
        }
    }

    var memberCount: Int { lock.withLock { members.count } }

    private func startEncoder(_ encoder: FrameEncoder, feed: Int) {
        threads.spawn("encode-\(id)-\(encoder.generation)") { [self] in encodeLoop(encoder, feed: feed) }
    }

    /// Recovery's fresh encoder: a new codec instance on a new thread for the
    /// whole layer, its picture scaled by `shrink.factor` until `shrink.until`.
    /// The old thread, if it is stuck inside an encode call, is abandoned
    /// (counted), never waited for; whatever it still returns is refused by
    /// every member's transceiver.
    func freshEncoder(shrink: (factor: Double, until: Instant), reason: String) {
        let (encoder, next) = lock.withLock { () -> (FrameEncoder, Int) in
            state.shrink = shrink
            state.gate.request(at: clock.now)
            abandonBusyEncoder()
            state.encodeGeneration += 1
            state.encodeBusySince = nil
            feed = EncoderLayer.nextFeed()
            for member in members { member.follow(self, feed: feed) }
            lock.broadcast()
            return (FrameEncoder(codec: key.codec, generation: state.encodeGeneration), feed)
        }
        output.log(.info, "screen", "layer \(id): fresh encoder (\(reason))")
        startEncoder(encoder, feed: next)
    }

    /// The current encode thread, if it is inside an encode call, is not waited for again. Call with `lock` held.
    private func abandonBusyEncoder() {
        if state.encodeBusySince != nil && threads.abandon("encode-\(id)-\(state.encodeGeneration)") {
            state.abandonedEncoders += 1
        }
    }

    func restoreFullSize() {
        lock.withLock { state.shrink = nil }
    }

    func setPolicy(_ policy: SendPolicy) {
        lock.withLock {
            state.share.policy = policy
            state.balanced = BalancedSizer()
        }
    }

    /// A keyframe for the whole layer: at most one per 300 ms however many
    /// ask (docs/behaviour.md §7.4). `repairWindow` is the asking receiver's.
    func requestKeyframe(by asker: KeyframeGate.Asker, repairWindow: Duration = .zero) {
        lock.withLock {
            state.gate.request(at: clock.now, by: asker, repairWindow: repairWindow)
            lock.broadcast()
        }
    }

    /// A member resends what its receiver lost: a repair is under way.
    func resent(at now: Instant) {
        lock.withLock { state.gate.resent(at: now) }
    }

    /// A member sent a keyframe's last packet.
    func keyframeLeft(at now: Instant) {
        lock.withLock { state.gate.keyframeSent(at: now) }
    }

    /// Stops the encode thread and releases held surfaces. An encode call
    /// still running is abandoned, not waited for.
    func stop() {
        lock.withLock {
            state.running = false
            abandonBusyEncoder()
            lock.broadcast()
        }
        threads.waitForAll()
        lock.withLock {
            if let pending = state.pending {
                pool.release(pending)
                state.pending = nil
            }
        }
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

    // MARK: Encode thread

    /// The path, not the cap, sets some member's target. Call with `lock` held.
    private func linkLimited(at now: Instant) -> Bool {
        members.contains { $0.linkLimited(at: now) }
    }

    private func encodeLoop(_ encoder: FrameEncoder, feed: Int) {
        let generation = encoder.generation
        var lastEncode = clock.now
        var schedule = FrameRateSchedule()
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
                let framePeriod = Duration.framePeriod(fps: state.share.fps)
                let limited = linkLimited(at: now)
                let keyframeDue = state.gate.shouldEncodeKeyframe(at: now, linkLimited: limited)
                    && now - lastEncode >= framePeriod
                let repeatDue = now - lastEncode >= LayerState.stillRepeatInterval
                if keyframeDue || repeatDue, let latest = latestFrame() {
                    surface = latest
                    isRepeat = true
                    state.repeatsTaken += 1
                    break
                }
                var wake = lastEncode + LayerState.stillRepeatInterval
                if let k = state.gate.earliestKeyframe(linkLimited: limited), k < wake { wake = max(k, lastEncode + framePeriod, now) }
                // Due, but no frame has been captured yet: the first capture wakes this thread.
                if wake <= now { wake = now + LayerState.stillRepeatInterval }
                lock.wait(until: wake)
            }
            guard state.running, state.encodeGeneration == generation, let frame = surface else {
                lock.unlock()
                if let surface { pool.release(surface) }
                encoder.close()
                return
            }
            let now = clock.now
            let receivers = members.map { (connection: $0, feed: $0.feedSnapshot(at: now)) }
            let awaiting = receivers.map { $0.feed.transceiver.awaitsKeyframe }
            let lowest = receivers.min { $0.feed.target.bitrate < $1.feed.target.bitrate }
            let target = lowest?.feed.target
            // A stream that joined or began while a keyframe was being made did not get that one, and
            // one that missed a frame waits for the next: on a short link they come a second apart.
            if !state.gate.isPending && awaiting.contains(true) {
                state.gate.request(at: now, by: .streamWithoutKeyframe)
            }
            state.gate.lastResort(at: now, needed: receivers.contains { !$0.feed.asksForKeyframes },
                                  silent: Set(receivers.lazy.filter { !$0.feed.heardFrom }.map { $0.feed.transceiver.ssrc }))
            let wantKeyframe = state.gate.shouldEncodeKeyframe(at: now, linkLimited: receivers.contains { $0.feed.target.limit.isPath })
            guard let target else {
                // No member yet (or none left): nothing to encode for.
                lock.unlock()
                pool.release(frame)
                lastEncode = now
                continue
            }
            let (plan, fps) = state.plan(sourceWidth: frame.width, sourceHeight: frame.height, target: target, codec: key.codec,
                                         seesQueueing: lowest?.feed.seesQueueing ?? false, resending: lowest?.feed.resending ?? 0,
                                         now: now, levelLimit: key.levelLimit)
            let sharePeriod = Duration.framePeriod(fps: state.share.fps)
            let tooSoon = !isRepeat && !wantKeyframe && fps < state.share.fps
                && !schedule.admits(captureTime: frame.captureTime, sharePeriod: sharePeriod)
            let backlog = LayerState.backlog(delays: receivers.map { $0.feed.wait }, awaitingKeyframe: awaiting)
            let keeping = zip(receivers, backlog.skip).filter { !$0.1 }.map(\.0)
            let keyframeWaits = wantKeyframe && !tooSoon && state.keyframeWaits(delays: keeping.map(\.feed.wait), now: now)
            let held = !tooSoon && (backlog.held || keyframeWaits)
            let behind = zip(receivers, backlog.skip).filter(\.1).map(\.0)
            let sendTo = tooSoon || held ? [] : keeping
            state.encodeBusySince = tooSoon || held ? nil : now
            if tooSoon { state.framesSkippedForRate += 1 }
            if held { state.framesHeldForLink += 1 }
            if !tooSoon && !held && !behind.isEmpty {
                state.framesMissedBehind += behind.count
                for r in behind { r.feed.transceiver.awaitKeyframe() }
            }
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
                injectFault(fault)
                lastEncode = clock.now
                continue
            }
            if !isRepeat {
                schedule.encoded(captureTime: frame.captureTime, period: .framePeriod(fps: fps), sharePeriod: sharePeriod)
            }
            let stamp = isRepeat ? now : frame.captureTime
            if !isRepeat { for r in sendTo { r.connection.frameStarting(captured: frame.captureTime) } }
            encode(frame, with: encoder, feed: feed, to: sendTo.map(\.feed), settings: plan, keyframe: wantKeyframe,
                   isRepeat: isRepeat, stamp: stamp, started: now)
            lastEncode = clock.now
        }
    }

    /// The first encoder's fault: it produces nothing, or its call never returns.
    private func injectFault(_ fault: EncoderFault) {
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

    /// The encoder's own timestamp for a picture stamped `stamp`: 90 kHz from the layer's start.
    /// Each transceiver stamps the packets it sends on its own stream's clock.
    private func encoderTimestamp(_ stamp: Instant) -> UInt32 {
        UInt32(truncatingIfNeeded: max(0, (stamp - state.started).nanoseconds) * 9 / 100_000)
    }

    private func encode(_ frame: Surface, with encoder: FrameEncoder, feed: Int, to receivers: [SenderConnection.Feed],
                        settings: EncoderSettings, keyframe: Bool, isRepeat: Bool, stamp: Instant, started: Instant) {
        do {
            try encoder.configure(settings)
            // Each slice goes to every member's transceiver as x264 finishes it, from x264's threads.
            let accepted = Atomic(false)
            let encoded = try encoder.encode(frame, timestamp: encoderTimestamp(stamp), keyframe: keyframe) { part, endsFrame, isKeyframe in
                for r in receivers where r.transceiver.send(part, endsFrame: endsFrame, keyframe: isKeyframe, at: stamp, feed: feed,
                                                             into: r.queue) {
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
                if isRepeat {
                    state.stillRepeats += 1
                } else {
                    state.rateAdjuster.record(frameBits: encoded.bytes.count * 8,
                                              askedBits: Double(settings.bitrate) / Double(max(1, settings.fps)),
                                              bufferBits: settings.bufferBits, at: now)
                }
                if encoded.isKeyframe {
                    state.keyframeWaitingSince = nil
                    state.gate.keyframeEncoded(at: now, started: started)
                    state.keyframesMade += 1
                } else {
                    state.gate.frameEncoded()
                }
                state.encodedSize = (settings.width, settings.height)
            }
        } catch {
            lock.withLock {
                state.encodeBusySince = nil
                state.encoderErrors += 1
            }
            output.log(.error, "screen", "layer \(id): \(error)")
        }
    }
}
