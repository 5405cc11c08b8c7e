import Encoding
import Media
import Testing

struct KeyframeGateTests {
    @Test func firstRequestIsAnsweredAtOnce() {
        var gate = KeyframeGate()
        gate.request(at: .seconds(1))
        #expect(gate.shouldEncodeKeyframe(at: .seconds(1)))
    }

    @Test func pliEvery200msYieldsOneIDREvery300msAtMost() {
        // At 0 s an IDR; PLIs at 0.2, 0.4, 0.6 … 2.0 s; frames every 33 ms.
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .zero)
        var idrs: [Instant] = []
        var t = Instant.zero
        var nextPLI = Instant.seconds(0.2)
        while t < .seconds(2) {
            if t >= nextPLI {
                gate.request(at: t)
                nextPLI = nextPLI + .milliseconds(200)
            }
            if gate.shouldEncodeKeyframe(at: t) {
                gate.keyframeEncoded(at: t)
                idrs.append(t)
            }
            t = t + .nanoseconds(33_333_333)
        }
        for (a, b) in zip([Instant.zero] + idrs, idrs) {
            #expect(b - a >= KeyframeGate.minimumInterval)
        }
        #expect(idrs.count >= 4)
    }

    @Test func requestWithinIntervalWaitsUntilItEnds() {
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .seconds(1))
        gate.request(at: .seconds(1.1))
        #expect(!gate.shouldEncodeKeyframe(at: .seconds(1.2)))
        #expect(gate.earliestKeyframe() == .seconds(1.3))
        #expect(gate.shouldEncodeKeyframe(at: .seconds(1.3)))
    }

    @Test func manyRequestsCoalesceIntoOne() {
        var gate = KeyframeGate()
        gate.keyframeEncoded(at: .zero)
        for ms in [100, 150, 200, 250] { gate.request(at: .zero + .milliseconds(ms)) }
        gate.keyframeEncoded(at: .seconds(0.3))
        #expect(gate.requestsAnswered == 1)
        #expect(gate.requestsCoalesced == 3)
        #expect(!gate.isPending)
    }
}
