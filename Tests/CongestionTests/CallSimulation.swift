import Congestion
import Media
import RTP

/// A whole call on one simulated clock, 1 ms a step: an encoder making
/// frames at the estimator's target, a pacer, probe clusters, the
/// bottleneck, and a receiver that answers with real RTCP bytes
/// (transport-wide feedback every 50–100 ms, or NACKs and receiver
/// reports, or nothing), which reach the sender after the return delay.
struct CallSimulation {
    enum Receiver {
        case transportWide
        case nacksOnly
        case silent
    }

    struct Sample {
        var time: Instant
        var target: SendSideBandwidthEstimator.Target
        var queueDelay: Duration
        var applicationLimited: Bool
    }

    private struct Sent {
        var transportSequence: UInt16
        var mediaSequence: UInt16?
        var arrival: Instant?
    }

    static let step: Duration = .milliseconds(1)
    static let frameInterval: Duration = .nanoseconds(33_333_333)
    static let packetSize = 1200

    var estimator: SendSideBandwidthEstimator
    var link: SimulatedLink
    let receiver: Receiver
    /// The most the application has to send, bits per second, at a time; nil: all the target allows.
    var applicationRate: (Instant) -> Double? = { _ in nil }
    /// How much of the target the encoder aims at (screenshare's aims at 0.85 of it).
    var encoderShare = 1.0
    private(set) var now = Instant.zero
    private(set) var samples: [Sample] = []
    /// Each probe cluster as it left: when, its rate, and the target it left at.
    private(set) var probes: [(at: Instant, bitrate: Double, target: Int)] = []
    var probeStarts: [Instant] { probes.map(\.at) }
    private var pacer = Pacer(rateBitsPerSecond: 1_000_000, queueCapacity: 4096)
    private var probePackets: [(time: Instant, size: Int, cluster: Int)] = []
    private var nextFrame = Instant.zero
    private var mediaSequence: UInt16 = 0
    private var unheard: [Sent] = []
    private var feedback: [(at: Instant, bytes: [UInt8])] = []
    private var builder = TransportFeedbackBuilder(senderSSRC: 2, mediaSSRC: 1)
    private var nextFeedback = Instant.zero + .milliseconds(50)
    private var random = SeededRandom(seed: 7)
    private var expectedMedia: UInt16?

    init(estimator: SendSideBandwidthEstimator, link: SimulatedLink, receiver: Receiver) {
        self.estimator = estimator
        self.link = link
        self.receiver = receiver
    }

    mutating func run(until end: Instant) {
        while now < end {
            deliverFeedback()
            if now >= nextFrame {
                encodeFrame()
                nextFrame = nextFrame + Self.frameInterval
            }
            if let cluster = estimator.pendingProbe(at: now) {
                probes.append((now, cluster.bitrate, estimator.target(at: now).bitrate))
                let spacing = Double(cluster.packetSize * 8) / cluster.bitrate
                // Clusters leave one after another, as from the sender's queue: two at once would
                // share the link and each measure the other.
                let start = probePackets.last.map { max(now, $0.time + .nanoseconds(Int64(spacing * 1e9))) } ?? now
                for i in 0..<cluster.packetCount {
                    probePackets.append((start + .nanoseconds(Int64(Double(i) * spacing * 1e9)), cluster.packetSize, cluster.id))
                }
            }
            sendDue()
            listen()
            if now.nanoseconds % 100_000_000 == 0 {
                samples.append(Sample(
                    time: now, target: estimator.target(at: now), queueDelay: link.queueDelay(at: now),
                    applicationLimited: estimator.isApplicationLimited))
            }
            now = now + Self.step
        }
    }

    func target(at time: Instant) -> SendSideBandwidthEstimator.Target {
        samples.last { $0.time <= time }!.target
    }

    func samples(from start: Double, to end: Double) -> [Sample] {
        samples.filter { $0.time >= .seconds(start) && $0.time <= .seconds(end) }
    }

    /// The longest stretch the bottleneck's queue stayed above `limit`.
    func longestQueue(above limit: Duration) -> Duration {
        var longest = Duration.zero
        var since: Instant?
        for sample in samples {
            if sample.queueDelay > limit {
                since = since ?? sample.time
                longest = max(longest, sample.time - since!)
            } else {
                since = nil
            }
        }
        return longest
    }

    private mutating func encodeFrame() {
        var rate = Double(estimator.target(at: now).bitrate) * encoderShare
        if let limit = applicationRate(now) { rate = min(rate, limit) }
        var bytes = Int(rate * Self.frameInterval.inSeconds / 8)
        while bytes > 0 {
            pacer.enqueue(size: min(bytes, Self.packetSize))
            bytes -= Self.packetSize
        }
    }

    private mutating func sendDue() {
        while let probe = probePackets.first, probe.time <= now {
            probePackets.removeFirst()
            send(size: probe.size, at: probe.time, kind: .probe(cluster: probe.cluster))
        }
        // A cluster takes the link to itself, or media queued with it would
        // spread its packets and the probe would measure less than the path carries.
        guard probePackets.isEmpty else { return }
        pacer.rateBitsPerSecond = estimator.pacingRate(at: now)
        while let size = pacer.dequeue(now: now) {
            send(size: size, at: now, kind: .media)
        }
    }

    private mutating func send(size: Int, at time: Instant, kind: SentPacketLog.Kind) {
        var media: UInt16?
        if kind == .media {
            media = mediaSequence
            mediaSequence &+= 1
        }
        let transport = estimator.onPacketSent(size: size, at: time, kind: kind, sequenceNumber: media)
        unheard.append(Sent(transportSequence: transport, mediaSequence: media, arrival: link.send(size: size, at: time)))
    }

    /// The receiver learns of each packet as it arrives, and of a loss when
    /// a later packet arrives.
    private mutating func listen() {
        guard let heard = unheard.lastIndex(where: { $0.arrival.map { $0 <= now } ?? false }) else { return }
        switch receiver {
        case .transportWide:
            guard now >= nextFeedback else { return }
            nextFeedback = now + .milliseconds(Int64.random(in: 50...100, using: &random))
            let arrivals = unheard[...heard].map {
                TransportFeedbackBuilder.Arrival(sequenceNumber: $0.transportSequence, time: $0.arrival)
            }
            for packet in builder.build(arrivals) { sendBack(.transportFeedback(packet)) }
        case .nacksOnly:
            var lost: [UInt16] = []
            for sent in unheard[...heard] {
                guard let media = sent.mediaSequence else { continue }
                if sent.arrival == nil { lost.append(media) }
            }
            if !lost.isEmpty { sendBack(.genericNACK(GenericNACK(senderSSRC: 2, mediaSSRC: 1, lostSequenceNumbers: lost))) }
        case .silent:
            break
        }
        unheard.removeFirst(heard + 1)
    }

    private mutating func sendBack(_ packet: RTCPPacket) {
        var bytes: [UInt8] = []
        try! packet.marshal(into: &bytes)
        feedback.append((now + link.propagationDelay, bytes))
    }

    private mutating func deliverFeedback() {
        while let first = feedback.first, first.at <= now {
            feedback.removeFirst()
            for packet in try! RTCPPacket.parseCompound(first.bytes) {
                switch packet {
                case .transportFeedback(let report): estimator.onTransportFeedback(report, at: now)
                case .genericNACK(let nack): estimator.onNack(sequenceNumbers: nack.lostSequenceNumbers, at: now)
                default: break
                }
            }
        }
    }
}
