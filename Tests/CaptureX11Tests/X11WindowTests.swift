import Testing
@testable import CaptureX11
import Capture

extension X11Tests {
    @Suite struct Window {
        @Test func windowCapture_followsMoveAndResize_thenReportsClosed() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            client.setRootColour(Colour.slate)
            try server.run("xdotool", "mousemove", "630", "470")
            let window = client.createWindow(x: 50, y: 50, width: 200, height: 100, colour: Colour.orange)
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .window(window), fps: 30)
            try source.start(sink.output())
            defer { source.stop() }

            try #require(try await sink.wait { $0.frames >= 1 })
            var frame = sink.snapshot.last
            #expect(frame.width == 200 && frame.height == 100)
            #expect(frame.colour(x: 0, y: 0) == Colour.orange && frame.colour(x: 199, y: 99) == Colour.orange)

            client.configure(window, x: 300, y: 200, width: 240, height: 160)
            try #require(try await sink.wait { $0.last.width == 240 && $0.last.height == 160 })
            frame = sink.snapshot.last
            #expect(frame.colour(x: 0, y: 0) == Colour.orange && frame.colour(x: 239, y: 159) == Colour.orange)
            #expect(source.frameSize == (240, 160))

            client.destroy(window)
            try #require(try await sink.wait { $0.failure != nil })
            let failure = sink.snapshot.failure
            #expect(failure?.kind == .permanent)
            #expect(failure?.message == "The shared window was closed")
        }

        @Test func windowPartlyOffScreen_keepsItsSizeWithTheHiddenPartBlack() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            try server.run("xdotool", "mousemove", "0", "0")
            let window = client.createWindow(x: 540, y: 400, width: 200, height: 100, colour: Colour.orange)
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .window(window), fps: 30)
            try source.start(sink.output())
            defer { source.stop() }

            try #require(try await sink.wait { $0.frames >= 1 })
            let frame = sink.snapshot.last
            #expect(frame.width == 200 && frame.height == 100)
            #expect(frame.colour(x: 99, y: 79) == Colour.orange)
            #expect(frame.colour(x: 100, y: 0) == 0)
            #expect(frame.colour(x: 0, y: 80) == 0)
        }
    }
}
