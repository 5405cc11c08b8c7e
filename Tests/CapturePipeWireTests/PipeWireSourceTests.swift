import Foundation
import Testing
import Capture
import CapturePipeWire
import TestSupport
import Media
import Synchronization

/// Each test runs its own PipeWire daemon and test producer, and links the
/// capture to the producer itself (there is no session manager).
@Suite(.serialized)
struct PipeWireSourceTests {
    static let fps = 30

    private func withProducer(_ options: PipeWireTestProducer.Options,
                              _ body: (TestPipeWireDaemon, PipeWireTestProducer) throws -> Void) throws {
        let daemon = try TestPipeWireDaemon()
        defer { daemon.stop() }
        let producer = try PipeWireTestProducer(options, remoteFD: try daemon.connect())
        defer { producer.stop() }
        try body(daemon, producer)
    }

    private func capture(_ daemon: TestPipeWireDaemon, node: @escaping @Sendable () -> UInt32?,
                         sink: RecordingSink, fps: Int = Self.fps, stallLimit: Duration = .seconds(3)) throws -> (PipeWireSource, CaptureOutput) {
        let socket = daemon.socketPath
        let source = PipeWireSource(fps: fps, linksItself: true, stallLimit: stallLimit,
                                    remote: { () throws(CaptureError) -> Int32? in try PipeWireRemote.connectSocket(path: socket) },
                                    node: node)
        let output = CaptureOutput(pool: SurfacePool(width: 1920, height: 1080), clock: SystemClock(), sink: sink)
        try source.start(output)
        return (source, output)
    }

    @Test(arguments: [PipeWirePixelFormat.bgrx, .rgba])
    func framesArrivePixelExact_inEitherChannelOrder(format: PipeWirePixelFormat) throws {
        var options = PipeWireTestProducer.Options(width: 320, height: 240)
        options.format = format
        try withProducer(options) { daemon, producer in
            let node = try waitForNode(producer)
            let sink = RecordingSink()
            let (source, _) = try capture(daemon, node: { node }, sink: sink)
            defer { source.stop() }
            #expect(sink.wait(upTo: .seconds(5)) { $0.frames.count >= 10 })
            let frames = sink.frames
            #expect(frames.allSatisfy { $0.patternMatches && $0.width == 320 && $0.height == 240 })
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.number < $1.number })
            #expect(source.frameSize == (320, 240))
        }
    }

    /// A producer faster than the share: each buffer that comes within a frame
    /// period of the last capture waits for the end of that period, a newer
    /// one replacing it, so captures are a period apart and each is the newest
    /// (docs/behaviour.md §2.6).
    @Test func fasterProducer_isCapturedAPeriodApart_newestFirst() throws {
        try withProducer(PipeWireTestProducer.Options(width: 320, height: 240)) { daemon, producer in
            let node = try waitForNode(producer)
            let sink = RecordingSink()
            let (source, _) = try capture(daemon, node: { node }, sink: sink, fps: 2)
            defer { source.stop() }
            #expect(sink.wait(upTo: .seconds(8)) { $0.frames.count >= 5 })
            let frames = sink.frames
            // Stamped when each capture began, at or a little after it was due.
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.captured - $0.captured >= .milliseconds(480) })
            // At 30 fps a period holds about 15 of the producer's frames; those in between were replaced.
            #expect(zip(frames, frames.dropFirst()).dropFirst().allSatisfy { $1.number - $0.number >= 10 })
            #expect(source.counters.droppedOverRate > 0)
            #expect(frames.allSatisfy { $0.patternMatches })
        }
    }

    @Test func sizeChangeMidStream_framesKeepComingAtTheNewSize() throws {
        var options = PipeWireTestProducer.Options(width: 320, height: 240)
        options.resize = (atFrame: 20, width: 480, height: 270)
        try withProducer(options) { daemon, producer in
            let node = try waitForNode(producer)
            let sink = RecordingSink()
            let (source, _) = try capture(daemon, node: { node }, sink: sink)
            defer { source.stop() }
            #expect(sink.wait(upTo: .seconds(6)) { $0.frames.filter { $0.width == 480 }.count >= 10 })
            let frames = sink.frames
            #expect(frames.contains { $0.width == 320 && $0.height == 240 })
            #expect(frames.allSatisfy { $0.patternMatches })
            #expect(sink.failures.isEmpty)
        }
    }

    @Test func cursorMetadata_isDrawnAtItsPosition() throws {
        var options = PipeWireTestProducer.Options(width: 320, height: 240)
        options.cursor = (x: 100, y: 60)
        try withProducer(options) { daemon, producer in
            let node = try waitForNode(producer)
            // Inside the 16 px square whose top-left is the position less the hotspot.
            let inside = (x: 100 - PipeWireTestPattern.cursorHotspot.x + 8, y: 60 - PipeWireTestPattern.cursorHotspot.y + 8)
            let sink = RecordingSink(cursorProbe: inside)
            let (source, _) = try capture(daemon, node: { node }, sink: sink)
            defer { source.stop() }
            #expect(sink.wait(upTo: .seconds(5)) { $0.frames.count >= 10 })
            let late = sink.frames.dropFirst(3)
            #expect(!late.isEmpty && late.allSatisfy { $0.cursorPixel == PipeWireTestPattern.cursorColour })
            #expect(late.allSatisfy { $0.patternMatches })
        }
    }

    /// The producer's cursor metadata lies in its shared memory: what does not fit the meta area is refused
    /// and counted, never read, and the frames go on (docs/behaviour.md §9).
    @Test(arguments: PipeWireTestProducer.CursorLie.allCases)
    func cursorMetadataThatDoesNotFit_isRefused(lie: PipeWireTestProducer.CursorLie) throws {
        var options = PipeWireTestProducer.Options(width: 320, height: 240)
        options.cursor = (x: 100, y: 60)
        options.cursorLie = lie
        try withProducer(options) { daemon, producer in
            let node = try waitForNode(producer)
            let inside = (x: 100 - PipeWireTestPattern.cursorHotspot.x + 1, y: 60 - PipeWireTestPattern.cursorHotspot.y + 1)
            let sink = RecordingSink(cursorProbe: inside)
            let (source, _) = try capture(daemon, node: { node }, sink: sink)
            defer { source.stop() }
            #expect(sink.wait(upTo: .seconds(5)) { $0.frames.count >= 10 })
            let frames = sink.frames
            #expect(frames.allSatisfy { $0.patternMatches && $0.cursorPixel != PipeWireTestPattern.cursorColour })
            #expect(source.counters.cursorRefused > 0)
        }
    }

    @Test func producerHoldingBuffers_captureNeverFreezes() throws {
        var options = PipeWireTestProducer.Options(width: 320, height: 240)
        options.hold = (buffers: 3, every: 15, forFrames: 10)
        try withProducer(options) { daemon, producer in
            let node = try waitForNode(producer)
            let sink = RecordingSink()
            let (source, _) = try capture(daemon, node: { node }, sink: sink)
            defer { source.stop() }
            #expect(sink.wait(upTo: .seconds(6)) { $0.frames.count >= 60 })
            let frames = sink.frames.dropFirst(2)
            let gaps = zip(frames, frames.dropFirst()).map { $1.arrival - $0.arrival }
            // A frame period is 33 ms; a freeze would show as a gap of many periods.
            #expect(gaps.allSatisfy { $0 < .milliseconds(400) }, "longest gap \(gaps.max() ?? .zero)")
            #expect(frames.allSatisfy { $0.patternMatches })
        }
    }
}

extension PipeWireSourceTests {
    @Test func producerKilledAndRestarted_temporaryErrorThenFramesAfterRestart() throws {
        let daemon = try TestPipeWireDaemon()
        defer { daemon.stop() }
        let options = PipeWireTestProducer.Options(width: 320, height: 240)
        var first: PipeWireTestProducer? = try PipeWireTestProducer(options, remoteFD: try daemon.connect())
        let current = Mutex<UInt32?>(try waitForNode(first!))
        let sink = RecordingSink()
        let (source, output) = try capture(daemon, node: { current.withLock { $0 } }, sink: sink,
                                               stallLimit: .seconds(1))
        defer { source.stop() }
        #expect(sink.wait(upTo: .seconds(5)) { $0.frames.count >= 5 })

        // The producer goes away as a crashed one would: its node and connection vanish.
        first = nil
        #expect(sink.wait(upTo: .seconds(4)) { !$0.failures.isEmpty })
        let failure = try #require(sink.failures.first)
        #expect(failure.kind == .temporary)
        #expect(failure.message.contains("gone away"), "\(failure.message)")

        let second = try PipeWireTestProducer(options, remoteFD: try daemon.connect())
        defer { second.stop() }
        let secondNode = try waitForNode(second)
        current.withLock { $0 = secondNode }
        let before = sink.frames.count
        // What the watchdog's capture restart does.
        source.stop()
        try source.start(output)
        #expect(sink.wait(upTo: .seconds(5)) { $0.frames.count >= before + 5 })
        #expect(sink.frames.dropFirst(before).allSatisfy { $0.patternMatches })
    }
}
