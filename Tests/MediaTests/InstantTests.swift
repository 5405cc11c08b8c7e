import Testing
@testable import Media

@Test func instantArithmeticRoundTrips() {
    let a = Instant.seconds(1.5)
    let b = a + .milliseconds(250)
    #expect(b.nanoseconds == 1_750_000_000)
    #expect((b - a) == .milliseconds(250))
    #expect(b - .milliseconds(250) == a)
}

@Test func manualClockMovesOnlyWhenTold() {
    let clock = ManualClock(.seconds(10))
    #expect(clock.now == .seconds(10))
    clock.advance(by: .seconds(4))
    #expect(clock.now == .seconds(14))
}
