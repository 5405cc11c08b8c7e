import Congestion
import Media
import Testing

struct SimulatedLinkTests {
    @Test func serializesAtItsRate_thenAddsPropagation() {
        // 1200 bytes at 1.2 Mbit/s take 8 ms; two sent together leave 8 ms apart.
        var link = SimulatedLink(bitsPerSecond: 1_200_000, queueLimit: .bytes(10_000), propagationDelay: .milliseconds(50))
        #expect(link.send(size: 1200, at: .zero) == .zero + .milliseconds(58))
        #expect(link.send(size: 1200, at: .zero) == .zero + .milliseconds(66))
        #expect(link.queueDelay(at: .zero) == .milliseconds(16))
    }

    @Test func fullQueue_dropsAtTheTail() {
        // A 3600-byte queue holds three packets behind the one being sent.
        var link = SimulatedLink(bitsPerSecond: 1_200_000, queueLimit: .bytes(3600), propagationDelay: .zero)
        let arrivals = (0..<6).map { _ in link.send(size: 1200, at: .zero) }
        #expect(arrivals.map { $0 != nil } == [true, true, true, false, false, false])
        #expect(link.droppedAtQueue == 3)
        // Once drained, it takes packets again.
        #expect(link.send(size: 1200, at: .zero + .milliseconds(40)) != nil)
    }

    @Test func burst_passesAtOnceAfterAnIdleSpell_thenTheRate() {
        // A 3600-byte bucket at 1.2 Mbit/s: three 1200-byte packets pass at once, the rest 8 ms apart.
        var link = SimulatedLink(bitsPerSecond: 1_200_000, queueLimit: .bytes(100_000), propagationDelay: .zero, burst: 3600)
        let arrivals = (0..<5).map { _ in link.send(size: 1200, at: .zero) }
        #expect(arrivals == [.zero, .zero, .zero, .zero + .milliseconds(8), .zero + .milliseconds(16)])
        #expect(link.queueDelay(at: .zero) == .milliseconds(16))
        // Idle long enough to fill again, it lets a burst through again.
        #expect(link.send(size: 1200, at: .seconds(1)) == .seconds(1))
    }

    @Test func rateSteps_changeTheSerializationTime() {
        var link = SimulatedLink(
            bitsPerSecond: 1_200_000, queueLimit: .delay(.seconds(1)), propagationDelay: .zero,
            steps: [.init(at: .seconds(1), bitsPerSecond: 600_000)])
        #expect(link.send(size: 1200, at: .zero) == .zero + .milliseconds(8))
        #expect(link.send(size: 1200, at: .seconds(2)) == .seconds(2) + .milliseconds(16))
    }

    @Test func seededLossAndJitter_areRepeatableAndNeverReorder() {
        func run() -> [Instant?] {
            var link = SimulatedLink(
                bitsPerSecond: 10_000_000, queueLimit: .delay(.seconds(1)), propagationDelay: .milliseconds(20),
                jitter: .milliseconds(10), lossRate: 0.05, seed: 42)
            return (0..<2000).map { link.send(size: 1000, at: .zero + .milliseconds(Int64($0))) }
        }
        let first = run()
        #expect(first == run())
        let lost = first.filter { $0 == nil }.count
        #expect((60...140).contains(lost))
        let delivered = first.compactMap { $0 }
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0 <= $1 })
    }
}
