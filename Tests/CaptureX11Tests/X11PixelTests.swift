import Testing
@testable import CaptureX11
import Capture
import Media

extension X11Tests {
    @Suite struct Pixels {
        @Test func screenCapture_matchesRootColourAndWindowExactly() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            client.setRootColour(Colour.slate)
            _ = client.createWindow(x: 100, y: 50, width: 200, height: 100, colour: Colour.orange)
            try server.run("xdotool", "mousemove", "630", "470")
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .screen, fps: 30)
            try source.start(sink.output())
            defer { source.stop() }

            try #require(try await sink.wait { $0.frames >= 1 })
            let frame = sink.snapshot.last
            #expect(frame.width == 640 && frame.height == 480)
            #expect(frame.colour(x: 0, y: 0) == Colour.slate)
            #expect(frame.colour(x: 99, y: 50) == Colour.slate)
            #expect(frame.colour(x: 100, y: 50) == Colour.orange)
            #expect(frame.colour(x: 299, y: 149) == Colour.orange)
            #expect(frame.colour(x: 300, y: 149) == Colour.slate)
            #expect(frame.colour(x: 100, y: 150) == Colour.slate)
        }

        @Test func wholeScreen_isReadStraightIntoTheSurfacesOwnMemory() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            client.setRootColour(Colour.slate)
            _ = client.createWindow(x: 100, y: 50, width: 200, height: 100, colour: Colour.orange)
            let connection = try X11Connection(display: server.display)
            let reader = X11ImageReader(connection: connection)
            let pool = SurfacePool(count: 1, width: 640, height: 480)
            let surface = try #require(pool.checkoutForWriting())
            #expect(surface.sharedMemory != nil)
            #expect(surface.resize(width: 640, height: 480))
            // Xvfb takes the surface's descriptor (MIT-SHM 1.2 over its Unix socket): no copy.
            #expect(try reader.read(connection.screen, into: surface))
            #expect(surface.pixel(x: 99, y: 50) & 0xFF_FFFF == Colour.slate)
            #expect(surface.pixel(x: 100, y: 50) & 0xFF_FFFF == Colour.orange)
            #expect(surface.pixel(x: 299, y: 149) & 0xFF_FFFF == Colour.orange)
            #expect(surface.pixel(x: 639, y: 479) & 0xFF_FFFF == Colour.slate)
        }

        @Test func largeScreen_isScaledToTheCap() async throws {
            let server = try await XvfbServer(width: 2560, height: 1440)
            try server.client().setRootColour(Colour.green)
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .screen, fps: 30)
            try source.start(sink.output())
            defer { source.stop() }

            #expect(source.frameSize == (1920, 1080))
            try #require(try await sink.wait { $0.frames >= 1 })
            let frame = sink.snapshot.last
            #expect(frame.width == 1920 && frame.height == 1080)
            // A box filter over one colour gives that colour back, to within
            // libyuv's fixed-point rounding (it comes out a step or two dark).
            #expect(Colour.near(frame.colour(x: 10, y: 10), Colour.green))
            #expect(Colour.near(frame.colour(x: 1910, y: 1070), Colour.green))
        }

        @Test func withoutMitShm_fallsBackToPlainImagesAndSaysSo() async throws {
            let server = try await XvfbServer(extraArguments: ["-extension", "MIT-SHM"])
            let client = try server.client()
            client.setRootColour(Colour.slate)
            _ = client.createWindow(x: 10, y: 20, width: 30, height: 40, colour: Colour.orange)
            let notes = Notes()
            let source = X11Source(display: server.display, target: .region(x: 0, y: 0, width: 100, height: 100),
                                   fps: 30, log: notes.add)
            let sink = RecordingSink()
            try source.start(sink.output())
            defer { source.stop() }

            try #require(try await sink.wait { $0.frames >= 1 })
            let frame = sink.snapshot.last
            #expect(frame.colour(x: 9, y: 20) == Colour.slate)
            #expect(frame.colour(x: 10, y: 20) == Colour.orange)
            #expect(frame.colour(x: 39, y: 59) == Colour.orange)
            #expect(notes.all.count == 1)
            #expect(notes.all.first?.contains("MIT-SHM") == true)
        }

        @Test func noServer_errorSaysWhatToCheck() throws {
            let free = XvfbServer.displayNumbers.first(where: XvfbServer.isFree) ?? 99
            let source = X11Source(display: ":\(free)", target: .screen, fps: 30)
            let error = #expect(throws: CaptureError.self) { try source.start(RecordingSink().output()) }
            #expect(error?.kind == .temporary)
            #expect(error?.message == "Cannot open X display :\(free) — is the X server running and DISPLAY set?")
        }

        @Test func cursorBlend_isPremultipliedOver() {
            #expect(X11Cursor.over(0xFF12_3456, 0x00AB_CDEF) == 0x0012_3456)
            #expect(X11Cursor.over(0x0000_0000, 0x00AB_CDEF) == 0x00AB_CDEF)
            // Half-transparent black over white: each channel 0 + 255 × 127/255.
            #expect(X11Cursor.over(0x8000_0000, 0x00FF_FFFF) == 0x007F_7F7F)
        }
    }
}
