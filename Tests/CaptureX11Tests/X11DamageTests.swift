import Testing
@testable import CaptureX11
import Capture
import Media

extension X11Tests {
    @Suite struct Damage {
        /// A tick that polled its events just before the drawing landed may still
        /// say idle; the one after must capture. Counted in ticks, not wall time,
        /// so a loaded machine cannot make it flaky.
        static let ticksToNotice = 2

        @Test func stillScreen_onlyIdles_thenDrawingIsCapturedWithinTwoTicks() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            client.setRootColour(Colour.slate)
            let clock = ManualClock()
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .screen, fps: 30)
            try source.start(sink.output(clock: clock))
            defer { source.stop() }
            try #require(try await sink.wait { $0.frames >= 1 })

            // The first frame is in; then nothing is drawn for 3 s of the capture's clock, 90 looks.
            let idlesAtStart = sink.snapshot.idles
            clock.run(for: .seconds(3))
            #expect(sink.snapshot.idles >= idlesAtStart + 90)
            let still = sink.snapshot
            #expect(still.frames == 1)

            let before = still.events.count
            client.fillRoot(x: 10, y: 10, width: 50, height: 50, colour: Colour.orange)
            try #require(try await sink.wait { $0.frames >= 2 })
            let after = sink.snapshot
            let idlesBeforeFrame = after.events[before...].prefix { if case .idle = $0 { true } else { false } }.count
            #expect(idlesBeforeFrame <= Damage.ticksToNotice)
            #expect(after.last.colour(x: 10, y: 10) == Colour.orange)
        }

        @Test func drawingOutsideSharedRegion_isNotCaptured() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            client.setRootColour(Colour.slate)
            let clock = ManualClock()
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .region(x: 0, y: 0, width: 200, height: 200), fps: 30)
            try source.start(sink.output(clock: clock))
            defer { source.stop() }
            try #require(try await sink.wait { $0.frames >= 1 })

            // Fifteen looks after drawing outside the region, each of which could have captured it.
            let idlesBefore = sink.snapshot.idles
            client.fillRoot(x: 400, y: 300, width: 100, height: 100, colour: Colour.orange)
            clock.run(for: .milliseconds(500))
            #expect(sink.snapshot.idles >= idlesBefore + 15)
            #expect(sink.snapshot.frames == 1)

            client.fillRoot(x: 150, y: 150, width: 100, height: 100, colour: Colour.green)
            try #require(try await sink.wait { $0.frames >= 2 })
            let frame = sink.snapshot.last
            #expect(frame.width == 200 && frame.height == 200)
            #expect(frame.colour(x: 199, y: 199) == Colour.green)
            #expect(frame.colour(x: 149, y: 149) == Colour.slate)
        }

        /// At 1 fps the capture looks once a second, so a change that waited
        /// for the next look would be captured half a second later on average;
        /// its damage event starts the capture at once instead (docs/behaviour.md §2.6).
        /// The capture's clock stands still while the drawing is done, so only
        /// the damage event can start that capture.
        @Test func drawing_isCapturedAtOnce_notAtTheNextLook() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            client.setRootColour(Colour.slate)
            let clock = ManualClock()
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .screen, fps: 1)
            try source.start(sink.output(clock: clock))
            defer { source.stop() }
            try #require(try await sink.wait { $0.frames >= 1 })

            for n in 0..<3 {
                // More than a period since the last capture, so the change may be captured at once;
                // the look that fell due in between found nothing changed.
                let idles = sink.snapshot.idles
                clock.advance(by: .milliseconds(1100))
                try #require(try await sink.wait { $0.idles > idles })
                let frames = sink.snapshot.frames
                let drawn = clock.now
                client.fillRoot(x: 10 + 60 * n, y: 10, width: 50, height: 50, colour: n % 2 == 0 ? Colour.orange : Colour.green)
                try #require(try await sink.wait { $0.frames > frames })
                #expect(sink.snapshot.captureTimes.last == drawn, "captured with the clock where it stood, not at the next look")
                #expect(sink.snapshot.last.colour(x: 10 + 60 * n, y: 10) == (n % 2 == 0 ? Colour.orange : Colour.green))
            }
        }

        /// A change within a frame period of the last capture waits for the end
        /// of that period: at 2 fps, two captures are never closer than 500 ms.
        @Test func drawingSoonAfterACapture_waitsForTheEndOfTheFramePeriod() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            client.setRootColour(Colour.slate)
            let clock = ManualClock()
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .screen, fps: 2)
            try source.start(sink.output(clock: clock))
            defer { source.stop() }
            try #require(try await sink.wait { $0.frames >= 1 })
            let idles = sink.snapshot.idles
            clock.advance(by: .milliseconds(700))
            try #require(try await sink.wait { $0.idles > idles })

            client.fillRoot(x: 10, y: 10, width: 50, height: 50, colour: Colour.orange)
            try #require(try await sink.wait { $0.frames >= 2 })
            client.fillRoot(x: 100, y: 10, width: 50, height: 50, colour: Colour.green)
            // The clock stands still: its damage event (under a millisecond on its way) must not
            // start a capture within the period, however long it is waited for here.
            #expect(try await !sink.wait(upTo: .milliseconds(300)) { $0.frames >= 3 })
            clock.advance(by: .milliseconds(500))
            try #require(try await sink.wait { $0.frames >= 3 })
            let times = sink.snapshot.captureTimes
            #expect(times[2] - times[1] == .milliseconds(500))
            #expect(sink.snapshot.last.colour(x: 100, y: 10) == Colour.green)
        }
    }
}
