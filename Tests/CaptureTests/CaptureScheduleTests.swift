import Media
import Testing
@testable import Capture

/// The capture's timeline at 30 fps: a 33.3 ms period, looks on its grid,
/// changes brought forward to the earliest the period allows.
struct CaptureScheduleTests {
    static let period = Duration.nanoseconds(1_000_000_000 / 30)

    func ms(_ n: Int64) -> Instant { Instant.zero + .milliseconds(n) }

    /// Runs the schedule's next run, as the ticker does: returns when it was due.
    static func run(_ schedule: inout CaptureSchedule, captures: Bool, taking: Duration = .zero) -> Instant {
        let due = schedule.begin()
        schedule.ran(due: due, captured: captures, now: due + taking)
        return due
    }

    @Test func withoutChanges_looksOnceAPeriod_onAGrid() {
        var schedule = CaptureSchedule(period: Self.period, start: .zero)
        let looks = (0..<4).map { _ in Self.run(&schedule, captures: false, taking: .milliseconds(2)) }
        #expect(looks == [Instant.zero, Instant.zero + Self.period, Instant.zero + Self.period * 2, Instant.zero + Self.period * 3])
    }

    @Test func changeLongAfterTheLastCapture_runsAtOnce() {
        // At 0 a capture; looks at 33 and 67 find nothing; a change at 80 runs at 80, not at the look at 100.
        var schedule = CaptureSchedule(period: Self.period, start: .zero)
        _ = Self.run(&schedule, captures: true)
        _ = Self.run(&schedule, captures: false)
        _ = Self.run(&schedule, captures: false)
        schedule.changed(at: ms(80))
        #expect(schedule.next == ms(80))
        #expect(Self.run(&schedule, captures: true) == ms(80))
        // The look after it is a period later, not at 100.
        #expect(schedule.next == ms(80) + Self.period)
    }

    @Test func changeWithinAPeriodOfTheLastCapture_waitsForTheEndOfThatPeriod() {
        // A look at 33 finds nothing; a capture woken at 50; a change at 60 runs at 83.3, not at 60.
        var schedule = CaptureSchedule(period: Self.period, start: .zero)
        _ = Self.run(&schedule, captures: false)
        _ = Self.run(&schedule, captures: false)
        schedule.changed(at: ms(50))
        #expect(Self.run(&schedule, captures: true) == ms(50))
        schedule.changed(at: ms(60))
        #expect(schedule.next == ms(50) + Self.period)
    }

    @Test func lookThatCapturedNothing_doesNotHoldBackAChange() {
        // A capture at 0, a look at 33.3 that captures nothing; a change at 40 runs at 40:
        // a period has passed since the last capture, whatever the look did.
        var schedule = CaptureSchedule(period: Self.period, start: .zero)
        _ = Self.run(&schedule, captures: true)
        _ = Self.run(&schedule, captures: false)
        schedule.changed(at: ms(40))
        #expect(schedule.next == ms(40))
    }

    @Test func changesDuringARun_areKeptForTheNext() {
        // A change at 10 runs at 33.3 (a capture at 0); a second change arrives while that run
        // is under way and is still pending after it: the next capture is a period later.
        var schedule = CaptureSchedule(period: Self.period, start: .zero)
        _ = Self.run(&schedule, captures: true)
        schedule.changed(at: ms(10))
        let due = schedule.begin()
        #expect(due == Instant.zero + Self.period)
        schedule.changed(at: due + .milliseconds(1))
        schedule.ran(due: due, captured: true, now: due + .milliseconds(3))
        #expect(schedule.changedAt == due + .milliseconds(1))
        #expect(schedule.next == due + Self.period)
    }

    @Test func manyChanges_neverCaptureMoreThanThirtyASecond() {
        // A change every 5 ms for a second, each run capturing and starting up to 4 ms late:
        // the captures are due a period apart, 30 in the second.
        var schedule = CaptureSchedule(period: Self.period, start: .zero)
        var dues: [Instant] = []
        var now = Instant.zero
        while now < ms(1000) {
            schedule.changed(at: now)
            while schedule.next <= now {
                let due = schedule.begin()
                schedule.ran(due: due, captured: true, now: now)
                dues.append(due)
            }
            now = now + .milliseconds(5)
        }
        #expect(zip(dues, dues.dropFirst()).allSatisfy { $1 - $0 >= Self.period })
        #expect(dues.count == 30)
    }

    @Test func lateRun_isNotMadeUpForWithABurst() {
        // The look due at 0 took 100 ms: the next is at once, then on a grid from there.
        var schedule = CaptureSchedule(period: Self.period, start: .zero)
        let due = schedule.begin()
        schedule.ran(due: due, captured: true, now: ms(100))
        #expect(schedule.next == ms(100))
        _ = Self.run(&schedule, captures: false)
        #expect(schedule.next == ms(100) + Self.period)
    }
}
