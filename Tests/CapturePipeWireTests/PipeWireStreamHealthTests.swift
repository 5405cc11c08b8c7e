import Testing
@testable import CapturePipeWire
import Capture
import CapturePipeWire
import TestSupport
import Media

/// The still-or-stalled rule on a simulated clock (frame period 33 ms, stall limit 3 s).
struct PipeWireStreamHealthTests {
    let period = Duration.milliseconds(33)

    private func at(_ milliseconds: Int) -> Instant { .zero + .milliseconds(milliseconds) }

    @Test func damageDrivenStillScreen_isIdleForever() {
        var health = PipeWireStreamHealth(stallLimit: .seconds(3), now: at(0))
        health.damageDriven = true
        health.enter(.streaming, at: at(100))
        health.frameArrived(at: at(120))
        // At 130 ms a frame is fresh; from then on nothing changes on screen for a minute.
        #expect(health.check(at: at(130), period: period) == .delivering)
        #expect(health.check(at: at(500), period: period) == .idle)
        #expect(health.check(at: at(60_000), period: period) == .idle)
    }

    @Test func fixedRateProducerSilentPastLimit_failsOnce() {
        var health = PipeWireStreamHealth(stallLimit: .seconds(3), now: at(0))
        health.enter(.streaming, at: at(0))
        health.frameArrived(at: at(1_000))
        // 1.5 s of silence is jitter; at 4.1 s it is a stall, said once.
        #expect(health.check(at: at(2_500), period: period) == .idle)
        guard case .fail = health.check(at: at(4_100), period: period) else {
            Issue.record("expected a failure")
            return
        }
        #expect(health.check(at: at(5_000), period: period) == .silent)
    }

    @Test func pausedStream_isNeverIdle_andFailsAtTheLimit() {
        var health = PipeWireStreamHealth(stallLimit: .seconds(3), now: at(0))
        health.damageDriven = true
        health.enter(.paused, at: at(0))
        #expect(health.check(at: at(2_900), period: period) == .silent)
        guard case .fail(let message) = health.check(at: at(3_000), period: period) else {
            Issue.record("expected a failure")
            return
        }
        #expect(message.contains("paused for 3 s"))
    }

    @Test func streamError_failsAtOnceWithPipeWiresWords() {
        var health = PipeWireStreamHealth(stallLimit: .seconds(3), now: at(0))
        health.enter(.error("no more input formats"), at: at(10))
        #expect(health.check(at: at(11), period: period) == .fail("The PipeWire screen stream failed: no more input formats"))
    }
}
