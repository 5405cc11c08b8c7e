import Testing
@testable import CaptureX11
import Capture

extension X11Tests {
    @Suite struct Monitors {
        @Test func monitorCapture_byName_showsOnlyThatMonitor() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            try server.run("xdotool", "mousemove", "0", "0")
            client.fillRoot(x: 0, y: 0, width: 320, height: 480, colour: Colour.slate)
            client.fillRoot(x: 320, y: 0, width: 320, height: 480, colour: Colour.green)
            try server.run("xrandr", "--setmonitor", "right", "320/0x480/0+320+0", "none")
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .monitor("right"), fps: 30)
            try source.start(sink.output())
            defer { source.stop() }

            try #require(try await sink.wait { $0.frames >= 1 })
            let frame = sink.snapshot.last
            #expect(frame.width == 320 && frame.height == 480)
            #expect(frame.colour(x: 0, y: 0) == Colour.green && frame.colour(x: 319, y: 479) == Colour.green)
        }

        @Test func unknownMonitor_errorListsTheMonitorsThatExist() async throws {
            let server = try await XvfbServer()
            let source = X11Source(display: server.display, target: .monitor("HDMI-9"), fps: 30)
            let error = #expect(throws: CaptureError.self) { try source.start(RecordingSink().output()) }
            #expect(error?.kind == .permanent)
            #expect(error?.message == "X display \(server.display) has no monitor named \"HDMI-9\"; its monitors are: screen 640×480 at 0,0")
        }
    }
}
