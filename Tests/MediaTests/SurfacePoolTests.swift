import Testing
@testable import Media

@Test func seventhFrameWhileSixAreHeldIsDroppedAndCaptureCarriesOn() {
    let pool = SurfacePool(width: 16, height: 16)
    var held: [Surface] = []
    for n in 0..<6 {
        let s = try! #require(pool.checkoutForWriting())
        pool.finishWriting(s, captureTime: .seconds(Double(n)), frameNumber: UInt64(n))
        held.append(s)
    }
    #expect(pool.checkoutForWriting() == nil)
    #expect(pool.counters.droppedAllHeld == 1)

    pool.release(held[2])
    let next = pool.checkoutForWriting()
    #expect(next === held[2])
    #expect(pool.counters.written == 6)
}

@Test func surfaceHeldByEncoderIsNotReusedUntilReleased() {
    let pool = SurfacePool(count: 1, width: 4, height: 4)
    let s = try! #require(pool.checkoutForWriting())
    pool.hold(s)
    pool.release(s)
    #expect(pool.checkoutForWriting() == nil)
    pool.release(s)
    #expect(pool.checkoutForWriting() === s)
}

@Test func frameMoreThan100msLateIsLate() {
    let captured = Instant.seconds(1)
    #expect(!FrameLateness.isLate(captureTime: captured, now: captured + .milliseconds(100)))
    #expect(FrameLateness.isLate(captureTime: captured, now: captured + .milliseconds(101)))
}

@Test func surfaceRefusesASizeBeyondItsCapacity() {
    let pool = SurfacePool(count: 1, width: 8, height: 8)
    let s = try! #require(pool.checkoutForWriting())
    #expect(s.resize(width: 8, height: 8))
    #expect(!s.resize(width: 9, height: 8))
}
