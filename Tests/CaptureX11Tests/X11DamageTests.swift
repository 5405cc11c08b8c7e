import Testing
@testable import CaptureX11
import Capture

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
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .screen, fps: 30)
            try source.start(sink.output())
            defer { source.stop() }
            #expect(try await sink.wait { $0.frames >= 1 })

            // The first frame is in; then nothing is drawn for 90 ticks, 3 s at 30 fps.
            // Counting the capture's own ticks, not time, keeps a busy machine from bending the test.
            let idlesAtStart = sink.snapshot.idles
            #expect(try await sink.wait(upTo: .seconds(30)) { $0.idles >= idlesAtStart + 90 })
            let still = sink.snapshot
            #expect(still.frames == 1)

            let before = still.events.count
            client.fillRoot(x: 10, y: 10, width: 50, height: 50, colour: Colour.orange)
            #expect(try await sink.wait { $0.frames >= 2 })
            let after = sink.snapshot
            let idlesBeforeFrame = after.events[before...].prefix { if case .idle = $0 { true } else { false } }.count
            #expect(idlesBeforeFrame <= Damage.ticksToNotice)
            #expect(after.last.colour(x: 10, y: 10) == Colour.orange)
        }

        @Test func drawingOutsideSharedRegion_isNotCaptured() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            client.setRootColour(Colour.slate)
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .region(x: 0, y: 0, width: 200, height: 200), fps: 30)
            try source.start(sink.output())
            defer { source.stop() }
            #expect(try await sink.wait { $0.frames >= 1 })

            // Fifteen ticks after drawing outside the region, each of which could have captured it.
            let idlesBefore = sink.snapshot.idles
            client.fillRoot(x: 400, y: 300, width: 100, height: 100, colour: Colour.orange)
            #expect(try await sink.wait(upTo: .seconds(10)) { $0.idles >= idlesBefore + 15 })
            #expect(sink.snapshot.frames == 1)

            client.fillRoot(x: 150, y: 150, width: 100, height: 100, colour: Colour.green)
            #expect(try await sink.wait { $0.frames >= 2 })
            let frame = sink.snapshot.last
            #expect(frame.width == 200 && frame.height == 200)
            #expect(frame.colour(x: 199, y: 199) == Colour.green)
            #expect(frame.colour(x: 149, y: 149) == Colour.slate)
        }
    }
}
