import Media
import Testing
@testable import Receiving

/// The receiver's delay-based estimate on simulated arrivals: frames every
/// 33 ms of media time, arriving as a path with or without a filling queue would deliver them.
struct ArrivalRateEstimatorTests {
    func run(frames: Int, extraDelayPerFrame: (Int) -> Double) -> ArrivalRateEstimator {
        var estimator = ArrivalRateEstimator()
        var arrival = 0.0
        for n in 0..<frames {
            arrival = Double(n) * 33.333 + extraDelayPerFrame(n)
            let at = Instant(nanoseconds: Int64(arrival * 1_000_000))
            estimator.packetArrived(bytes: 5000, at: at)
            estimator.frameArrived(rtpTimestamp: UInt32(n * 3000), at: at)
        }
        return estimator
    }

    @Test func steadyArrivalsAreNotAQueue() {
        #expect(!run(frames: 90) { _ in 0 }.overused)
    }

    @Test func encoderJitterThatComesAndGoesIsNotAQueue() {
        // A busy CPU makes every other frame 40 ms late, and the next on time.
        #expect(!run(frames: 90) { $0 % 2 == 0 ? 40 : 0 }.overused)
    }

    @Test func aQueueThatKeepsGrowingIsOveruse() {
        // Each frame waits 5 ms longer than the one before: the link takes less than is sent.
        #expect(run(frames: 90) { Double($0) * 5 }.overused)
    }

    @Test func overuseBacksOffBelowWhatArrives() {
        var estimator = run(frames: 90) { Double($0) * 5 }
        let now = Instant(nanoseconds: Int64(90 * 33.333 * 1_000_000 + 450 * 1_000_000))
        let incoming = estimator.incomingBitrate(at: now)
        #expect(estimator.estimate(at: now, loss: 0) < incoming)
    }

    @Test func heavyLossBacksOffBelowWhatArrivesWithoutAGrowingQueue() {
        var estimator = run(frames: 90) { _ in 0 }
        let now = Instant(nanoseconds: Int64(90 * 33.333 * 1_000_000))
        let incoming = estimator.incomingBitrate(at: now)
        #expect(estimator.estimate(at: now, loss: 0.2) < incoming)
    }

    @Test func withoutOveruseTheEstimateOnlyGrows() {
        var estimator = run(frames: 30) { _ in 0 }
        let now = Instant.seconds(1)
        let first = estimator.estimate(at: now, loss: 0.05)
        #expect(estimator.estimate(at: now, loss: 0) >= first)
    }
}
