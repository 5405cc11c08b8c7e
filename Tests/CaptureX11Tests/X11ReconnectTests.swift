import Testing
@testable import CaptureX11
import Capture

extension X11Tests {
    @Suite struct Reconnect {
        @Test func serverRestart_reportsTemporaryError_andRestartedCaptureFlowsAgain() async throws {
            let server = try await XvfbServer()
            let sink = RecordingSink()
            let source = X11Source(display: server.display, target: .screen, fps: 30)
            try source.start(sink.output())
            defer { source.stop() }
            try #require(try await sink.wait { $0.frames >= 1 })

            server.stop()
            try #require(try await sink.wait { $0.failure != nil })
            #expect(sink.snapshot.failure?.kind == .temporary)

            // What the watchdog's capture restart does, once the server is back.
            #expect(try await server.launch())
            source.stop()
            let framesBefore = sink.snapshot.frames
            try source.start(sink.output())
            try #require(try await sink.wait { $0.frames > framesBefore })
        }
    }
}
