import Testing
@testable import CaptureX11
import Capture

extension X11Tests {
    @Suite struct Cursor {
        @Test func movingTheCursor_capturesAFrameWithTheCursorAtThePointer() async throws {
            let server = try await XvfbServer()
            try server.client().setRootColour(Colour.navy)
            try server.run("xdotool", "mousemove", "600", "440")
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .screen, fps: 30)
            try source.start(sink.output())
            defer { source.stop() }
            try #require(try await sink.wait { $0.frames >= 1 })
            #expect(region(sink.snapshot.last, x: 100, y: 100).allSatisfy { $0 == Colour.navy })

            // Nothing is drawn: only the pointer moves, and that alone makes a frame.
            try server.run("xdotool", "mousemove", "100", "100")
            try #require(try await sink.wait { $0.frames >= 2 })
            let frame = sink.snapshot.last
            #expect(region(frame, x: 100, y: 100).contains { $0 != Colour.navy }, "cursor drawn near its hotspot")
            #expect(region(frame, x: 600, y: 440).allSatisfy { $0 == Colour.navy }, "and gone from where it was")
        }

        /// The colours in a 32×32 square centred on (x, y): a cursor's hotspot
        /// lies within its image, which is at most this size on Xvfb.
        private func region(_ frame: RecordingSink.Frame, x: Int, y: Int) -> [UInt32] {
            (y - 16..<y + 16).flatMap { row in (x - 16..<x + 16).map { frame.colour(x: $0, y: row) } }
        }
    }
}
