@testable import Congestion
import Media
import Testing

struct DelayDetectionTests {
    /// Groups 20 ms apart at the sender arriving `growth` ms further apart each time.
    static func deltas(count: Int, growth: Double) -> [InterArrivalGrouping.Delta] {
        (1...count).map { i in
            InterArrivalGrouping.Delta(
                sendDelta: .milliseconds(20), arrivalDelta: .microseconds(Int64((20 + growth) * 1000)),
                arrival: .microseconds(Int64(i) * Int64((20 + growth) * 1000)))
        }
    }

    @Test func grouping_joinsA5msBurstAndComparesGroups() {
        var grouping = InterArrivalGrouping()
        // Two bursts of three packets, 30 ms apart, the second arriving 4 ms later than it left.
        var out: [InterArrivalGrouping.Delta] = []
        for burst in 0..<3 {
            for packet in 0..<3 {
                let send = Instant.zero + .milliseconds(Int64(30 * burst + 2 * packet))
                let arrival = Duration.milliseconds(Int64(30 * burst + 2 * packet + 4 * burst))
                if let delta = grouping.add(sendTime: send, arrival: arrival) { out.append(delta) }
            }
        }
        #expect(out == [.init(sendDelta: .milliseconds(30), arrivalDelta: .milliseconds(34), arrival: .milliseconds(38))])
    }

    @Test func trendline_slopeFollowsAGrowingQueue() {
        var growing = TrendlineFilter()
        var steady = TrendlineFilter()
        for delta in Self.deltas(count: 30, growth: 2) { _ = growing.update(delta) }
        for delta in Self.deltas(count: 30, growth: 0) { _ = steady.update(delta) }
        #expect(growing.slope > 0.05)
        #expect(steady.slope == 0)
    }

    @Test func overuse_onlyWhenTheTrendHoldsAboveTheThreshold() {
        var detector = OveruseDetector()
        let t = Instant.seconds(1)
        // One spike over the threshold is not overuse; a sustained rising trend is.
        #expect(detector.detect(trend: 20, sendDelta: .milliseconds(20), deltaCount: 30, at: t) == .normal)
        #expect(detector.detect(trend: 5, sendDelta: .milliseconds(20), deltaCount: 30, at: t + .milliseconds(20)) == .normal)
        var sustained = OveruseDetector()
        let verdicts = (0..<3).map {
            sustained.detect(trend: 20 + Double($0), sendDelta: .milliseconds(20), deltaCount: 30, at: t + .milliseconds(20 * Int64($0)))
        }
        #expect(verdicts == [.normal, .overusing, .overusing])
        #expect(sustained.detect(trend: -20, sendDelta: .milliseconds(20), deltaCount: 30, at: t + .milliseconds(80)) == .underusing)
    }

    @Test func aimd_backsOffToUnderTheDeliveredRate_holdsOnUnderuse_growsAfter() {
        var control = AIMDRateControl(bitrate: 2_000_000)
        let t = Instant.seconds(1)
        control.update(.overusing, acknowledged: 1_500_000, deliveredWhileBusy: 1_500_000, roundTrip: .milliseconds(100), at: t)
        #expect(control.bitrate == 1_275_000)
        // A second verdict within the round trip does not cut again.
        control.update(.overusing, acknowledged: 1_400_000, deliveredWhileBusy: 1_400_000, roundTrip: .milliseconds(100), at: t + .milliseconds(50))
        #expect(control.bitrate == 1_275_000)
        control.update(.underusing, acknowledged: 1_300_000, deliveredWhileBusy: 1_300_000, roundTrip: .milliseconds(100), at: t + .milliseconds(300))
        #expect(control.bitrate == 1_275_000)
        control.update(.normal, acknowledged: 1_300_000, deliveredWhileBusy: 1_300_000, roundTrip: .milliseconds(100), at: t + .milliseconds(400))
        control.update(.normal, acknowledged: 1_300_000, deliveredWhileBusy: 1_300_000, roundTrip: .milliseconds(100), at: t + .milliseconds(1400))
        // Near the last back-off: additive, about one packet per 200 ms response time.
        #expect((1_300_000...1_340_000).contains(control.bitrate))
    }

    @Test func aimd_overuseWhileApplicationLimited_backsOffFromWhatIsDelivered_butMeasuresNoCapacity() {
        // 1.2 Mbit/s sent under a 4 Mbit/s estimate fills the path's queue:
        // back to 0.85 of it at once, not 0.85 of the estimate at a time.
        var control = AIMDRateControl(bitrate: 4_000_000)
        control.update(.overusing, acknowledged: 1_200_000, deliveredWhileBusy: 1_200_000, roundTrip: .milliseconds(100), applicationLimited: true,
                       at: .seconds(1))
        #expect(control.bitrate == 1_020_000)
        // What a sender that did not fill the estimate delivered says nothing of the path's ceiling.
        #expect(control.capacityCeiling == nil)
        control.update(.overusing, acknowledged: 1_500_000, deliveredWhileBusy: 1_500_000, roundTrip: .milliseconds(100), at: .seconds(2))
        #expect(control.capacityCeiling.map { (1_500_000...1_600_000).contains($0) } ?? false)
    }

    @Test func aimd_backsOffUnderWhatThePathDeliveredWhileBusy_notOverAPause() {
        // docs/behaviour.md §7.7: 0.52 Mbit/s arrived over a window in which the sender paused;
        // while busy, the path delivered 1.5.
        var control = AIMDRateControl(bitrate: 1_700_000)
        control.update(.overusing, acknowledged: 520_000, deliveredWhileBusy: 1_500_000, roundTrip: .milliseconds(100),
                       at: .seconds(1))
        #expect(control.bitrate == 1_275_000)
        #expect(control.capacityCeiling.map { $0 > 1_500_000 } ?? false)
        // Busy too little of the window to say: back off from the estimate, and measure nothing.
        var unsure = AIMDRateControl(bitrate: 1_700_000)
        unsure.update(.overusing, acknowledged: 520_000, deliveredWhileBusy: nil, roundTrip: .milliseconds(100),
                      at: .seconds(1))
        #expect(unsure.bitrate == 1_445_000)
        #expect(unsure.capacityCeiling == nil)
    }

    @Test func aimd_doesNotGrowOnCapacityNobodyUses() {
        var control = AIMDRateControl(bitrate: 1_000_000)
        for second in 1...10 {
            control.update(.normal, acknowledged: 200_000, deliveredWhileBusy: 200_000, roundTrip: .milliseconds(100), at: .seconds(Double(second)))
        }
        #expect(control.bitrate == 1_000_000)
    }

    /// Ten seconds of feedback, every 100 ms, on packets sent every 10 ms whose queueing delay at
    /// `seconds` into the run is `queue(seconds)` ms; the estimate at each whole second.
    /// `acknowledged`: the delivered rate each feedback tells of; `draining`: whether less was
    /// sent lately than that.
    static func estimates(acknowledged: Double = 10_000_000, draining: Bool = false,
                          queue: (Double) -> Double) -> [Double] {
        var estimator = DelayBasedEstimator(bitrate: 1_000_000)
        var estimates: [Double] = []
        for feedback in 1...100 {
            let entries = (0..<10).map { i -> SentPacketLog.Entry in
                let seconds = Double((feedback - 1) * 10 + i) / 100
                let sent = Instant.zero + .milliseconds(Int64(seconds * 1000))
                return SentPacketLog.Entry(sequenceNumber: Int64(feedback * 10 + i), size: 1200, sendTime: sent, kind: .media,
                                           arrival: (sent - .zero) + .milliseconds(50) + .microseconds(Int64(queue(seconds) * 1000)))
            }
            estimator.update(entries, acknowledged: acknowledged, deliveredWhileBusy: acknowledged, queueDraining: draining, roundTrip: .milliseconds(100),
                             applicationLimited: false, at: .zero + .milliseconds(Int64(feedback * 100 + 50)))
            if feedback % 10 == 0 { estimates.append(estimator.bitrate) }
        }
        return estimates
    }

    @Test func aStandingQueue_holdsGrowth_thoughItsDelayHasNoTrendToSee() {
        // docs/behaviour.md §7.7: a queue filling by 12 ms a second is too slow a trend for the
        // detector, but once over 60 ms for half a second, growth stops while it stands.
        let filling = Self.estimates { 12 * $0 }
        let empty = Self.estimates { _ in 0 }
        #expect(empty[9] > 1.4 * empty[4], "with no queue it grows: \(empty.map { Int($0 / 1000) })")
        #expect(filling[4] == empty[4], "under 60 ms the queue changes nothing: \(filling.map { Int($0 / 1000) })")
        #expect(filling[9] == filling[6], "from 6 s the queue stands over 60 ms: \(filling.map { Int($0 / 1000) })")
    }

    @Test func overuseWhileLessIsSentThanDelivered_holdsInsteadOfBackingOff() {
        // A queue growing 100 ms a second from 2 s to 140 ms: overuse, and a back-off to 0.85 of
        // the 800 kbit/s delivered. Told that less was sent lately than that, the queue is draining
        // whatever the trend of the groups before says, and what was delivered is the sender's, not
        // the path's: the estimate holds. (A queue that stands past 150 ms backs off all the same:
        // `aDeepStandingQueue_backsOffEvenWhileLessIsSentThanDelivered`.)
        let growing: (Double) -> Double = { $0 >= 2 ? min(140, 100 * ($0 - 2)) : 0 }
        let backedOff = Self.estimates(acknowledged: 800_000, queue: growing)
        let held = Self.estimates(acknowledged: 800_000, draining: true, queue: growing)
        #expect(backedOff[9] <= 680_000, "\(backedOff.map { Int($0 / 1000) })")
        #expect(held.allSatisfy { $0 == 1_000_000 }, "\(held.map { Int($0 / 1000) })")
    }

    @Test func aDeepStandingQueue_backsOffEvenWhileLessIsSentThanDelivered() {
        // From 2 s a queue of 200 ms stands, as behind a step down, and less is sent than
        // delivered, as while new frames wait for it to drain. Past 150 ms through half a second
        // the bottleneck was busy all that while: the 800 kbit/s delivered is the path's, and the
        // estimate backs off to 0.85 of it. A queue of 100 ms only holds it.
        let deep = Self.estimates(acknowledged: 800_000, draining: true) { $0 >= 2 ? 200 : 0 }
        let shallow = Self.estimates(acknowledged: 800_000, draining: true) { $0 >= 2 ? 100 : 0 }
        #expect(deep[1] == 1_000_000 && abs(deep[9] - 680_000) < 1, "\(deep.map { Int($0 / 1000) })")
        #expect(shallow.allSatisfy { $0 == 1_000_000 }, "\(shallow.map { Int($0 / 1000) })")
    }

    @Test func standingQueue_isTheLeastWaitOverHalfASecond_notABurstsPeak() {
        var meter = StandingQueueMeter()
        // 50 ms of path delay; a keyframe's 150 ms of wait for a tenth of a second, then 30 ms standing.
        for step in 0..<300 {
            let sent = Instant.zero + .milliseconds(Int64(step * 10))
            let wait: Int64 = step >= 100 && step < 110 ? 150 : (step >= 200 ? 30 : 0)
            meter.add(sendTime: sent, arrival: (sent - .zero) + .milliseconds(50 + wait))
            if step == 140 { #expect(meter.standing == .zero, "just after the burst") }
        }
        #expect(meter.standing == .milliseconds(30))
        // A receiver's clock before its zero is a clock all the same.
        var early = StandingQueueMeter()
        for step in 0..<60 {
            let sent = Instant.zero + .milliseconds(Int64(step * 10))
            early.add(sendTime: sent, arrival: (sent - .zero) - .seconds(100))
        }
        #expect(early.standing == .zero)
    }
}
