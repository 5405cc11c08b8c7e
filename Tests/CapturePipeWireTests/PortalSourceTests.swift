import Foundation
import Testing
import Capture
import CapturePipeWire
import TestSupport
import Media
import Synchronization

/// Each test runs its own session bus with the portal stand-in on it; the
/// capture tests add a PipeWire daemon and the test producer, and link the
/// capture themselves (there is no session manager).
@Suite(.serialized)
struct PortalSourceTests {
    static let fps = 30
    /// Any node number will do where no frames are read.
    static let unusedNode: UInt32 = 7

    private func options(_ bus: TestSessionBus, _ tokens: TestTokenFile, notes: Notes = Notes()) -> ScreenCastPortal.Options {
        ScreenCastPortal.Options(sourceTypes: .monitor, restoreTokens: tokens.file, busAddress: bus.address,
                                 startTimeout: .seconds(5), requestTimeout: .seconds(5)) { notes.add($0) }
    }

    /// What the portal client said about the restore token.
    final class Notes: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// One whole share up to Start, as the portal source makes it.
    private func share(_ options: ScreenCastPortal.Options) throws -> [PortalStream] {
        let share = try ScreenCastPortal(options)
        defer { share.close() }
        try share.createSession()
        try share.selectSources()
        let streams = try share.start()
        #expect(share.restoreTokenProblem == nil)
        return streams
    }

    @Test func pickedMonitor_framesArrivePixelExact_andAgainAfterRestartOnTheSameSession() throws {
        let bus = try TestSessionBus()
        defer { bus.stop() }
        let daemon = try TestPipeWireDaemon()
        defer { daemon.stop() }
        let producer = try PipeWireTestProducer(.init(width: 320, height: 240), remoteFD: try daemon.connect())
        defer { producer.stop() }
        let node = try waitForNode(producer)
        let portal = try TestPortal(bus: bus, node: node, pipeWireSocket: daemon.socketPath)
        defer { portal.stop() }
        let tokens = TestTokenFile()
        defer { tokens.remove() }
        let source = PortalSource(options(bus, tokens), fps: Self.fps, linksItself: true)
        defer { source.close() }
        let sink = RecordingSink()
        let output = CaptureOutput(pool: SurfacePool(width: 1920, height: 1080), clock: SystemClock(), sink: sink)

        #expect(source.name == "portal monitor")
        try source.start(output)
        #expect(source.name == "portal monitor (node \(node))")
        #expect(sink.wait(upTo: .seconds(5)) { $0.frames.count >= 10 })
        #expect(sink.frames.allSatisfy { $0.patternMatches && $0.width == 320 && $0.height == 240 })

        // What the watchdog's capture restart does: a fresh connection, no new picker.
        source.stop()
        let before = sink.frames.count
        try source.start(output)
        #expect(sink.wait(upTo: .seconds(5)) { $0.frames.count >= before + 5 })
        #expect(sink.frames.dropFirst(before).allSatisfy { $0.patternMatches })
        #expect(portal.lines.filter { $0 == "pipewire_remote_opened" }.count == 2)
        #expect(portal.lines.filter { $0.hasPrefix("started") }.count == 1)
        #expect(sink.failures.isEmpty)
    }

    @Test func restoreToken_savedAfterStart_presentedOnTheNextShare_andKeptWhenItComesBack() throws {
        let bus = try TestSessionBus()
        defer { bus.stop() }
        let portal = try TestPortal(bus: bus, node: Self.unusedNode, pipeWireSocket: "/nonexistent")
        defer { portal.stop() }
        let tokens = TestTokenFile()
        defer { tokens.remove() }
        let notes = Notes()

        for _ in 1...2 {
            let streams = try share(options(bus, tokens, notes: notes))
            #expect(streams.map(\.nodeID) == [Self.unusedNode])
            #expect(streams.first?.sourceType == .monitor)
        }
        let token = try #require(tokens.file.load())
        #expect(portal.lines.filter { $0.hasPrefix("restore_token_presented=") }
            == ["restore_token_presented=none", "restore_token_presented=\(token)"])
        #expect(portal.lines.filter { $0.hasPrefix("started") }.map { $0.hasSuffix("restored=true") } == [false, true])
        #expect(notes.all == ["The desktop restored the last choice from the saved restore token, without its picker"])
    }

    @Test func refusedRestoreToken_fallsBackToThePicker_saysSo_andSavesTheNewToken() throws {
        let bus = try TestSessionBus()
        defer { bus.stop() }
        let portal = try TestPortal(bus: bus, node: Self.unusedNode, pipeWireSocket: "/nonexistent")
        defer { portal.stop() }
        let tokens = TestTokenFile()
        defer { tokens.remove() }
        try tokens.file.save("not-a-token-of-the-portal")
        let notes = Notes()

        _ = try share(options(bus, tokens, notes: notes))
        #expect(portal.lines.contains("restore_token_refused=not-a-token-of-the-portal"))
        #expect(portal.lines.contains("restore_token_presented=none"))
        #expect(notes.all.count == 1)
        #expect(notes.all.first?.hasPrefix("The desktop refused the saved restore token (") == true, "\(notes.all)")
        #expect(notes.all.first?.hasSuffix("; the screen is chosen in its picker instead") == true, "\(notes.all)")
        #expect(tokens.file.load().flatMap(UUID.init(uuidString:)) != nil)
    }

    @Test func unknownRestoreToken_isIgnoredByThePortal_theLogSaysThePickerChose() throws {
        let bus = try TestSessionBus()
        defer { bus.stop() }
        let portal = try TestPortal(bus: bus, node: Self.unusedNode, pipeWireSocket: "/nonexistent")
        defer { portal.stop() }
        let tokens = TestTokenFile()
        defer { tokens.remove() }
        let forgotten = UUID().uuidString.lowercased()
        try tokens.file.save(forgotten)
        let notes = Notes()

        _ = try share(options(bus, tokens, notes: notes))
        #expect(notes.all == ["The desktop did not know the saved restore token, so the screen was chosen in its picker"])
        #expect(tokens.file.load() != forgotten)
    }

    @Test func cancelledPicker_isAPermanentErrorInPlainWords_andSavesNoToken() throws {
        let bus = try TestSessionBus()
        defer { bus.stop() }
        let portal = try TestPortal(bus: bus, node: Self.unusedNode, pipeWireSocket: "/nonexistent", start: .cancel)
        defer { portal.stop() }
        let tokens = TestTokenFile()
        defer { tokens.remove() }
        let source = PortalSource(options(bus, tokens), fps: Self.fps)
        let output = CaptureOutput(pool: SurfacePool(width: 64, height: 64), clock: SystemClock(), sink: RecordingSink())

        let error = #expect(throws: CaptureError.self) { try source.start(output) }
        #expect(error?.kind == .permanent)
        #expect(error?.message == "The screen-share picker was cancelled")
        #expect(portal.lines.contains("start_cancelled"))
        #expect(tokens.file.load() == nil)
        #expect(source.name == "portal monitor")
    }

    @Test func unansweredPicker_timesOutWithAClearError() throws {
        let bus = try TestSessionBus()
        defer { bus.stop() }
        let portal = try TestPortal(bus: bus, node: Self.unusedNode, pipeWireSocket: "/nonexistent", start: .never)
        defer { portal.stop() }
        var options = ScreenCastPortal.Options(restoreTokens: nil, busAddress: bus.address)
        options.startTimeout = .milliseconds(300)
        let share = try ScreenCastPortal(options)
        try share.createSession()
        try share.selectSources()

        let error = #expect(throws: CaptureError.self) { try share.start() }
        #expect(error?.kind == .permanent)
        #expect(error?.message.hasPrefix("Nobody chose a screen in the screen-share picker within 300 ms") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: zip([PortalCursorModes([.hidden, .embedded, .metadata]), [.hidden, .metadata], [.hidden], []],
                         ["2", "4", "1", "none"]))
    func cursorMode_embeddedPreferred_thenMetadata_thenHidden(offered: PortalCursorModes, asked: String) throws {
        let bus = try TestSessionBus()
        defer { bus.stop() }
        let portal = try TestPortal(bus: bus, node: Self.unusedNode, pipeWireSocket: "/nonexistent", cursorModes: offered)
        defer { portal.stop() }
        let share = try ScreenCastPortal(ScreenCastPortal.Options(sourceTypes: .window, restoreTokens: nil, busAddress: bus.address))
        try share.createSession()
        try share.selectSources()
        #expect(portal.lines.contains("selected types=2 cursor_mode=\(asked) persist_mode=2"), "\(portal.lines)")
    }

    @Test func probe_reportsWhatThePortalOffers() throws {
        let bus = try TestSessionBus()
        defer { bus.stop() }
        let portal = try TestPortal(bus: bus, node: Self.unusedNode, pipeWireSocket: "/nonexistent")
        defer { portal.stop() }

        let probe = ScreenCastPortal.probe(busAddress: bus.address)
        #expect(probe.reachable)
        #expect(probe.version == 4)
        #expect(probe.sourceTypes == [.monitor, .window])
        #expect(probe.cursorModes == [.hidden, .embedded, .metadata])
        #expect(probe.description == "ScreenCast portal version 4: shares monitor, window; pointer modes hidden, embedded, metadata; remembers the last choice.")
    }

    @Test func probe_withNoPortalOnTheBus_saysItIsNotReachable() throws {
        let bus = try TestSessionBus()
        defer { bus.stop() }

        let probe = ScreenCastPortal.probe(busAddress: bus.address)
        #expect(!probe.reachable)
        #expect(probe.description.hasPrefix("ScreenCast portal: not reachable"), "\(probe.description)")
        #expect(probe.description.contains("org.freedesktop.portal.Desktop"), "\(probe.description)")
    }

    @Test func probe_withNoBus_saysItIsNotReachable() {
        let probe = ScreenCastPortal.probe(busAddress: "unix:path=/nonexistent/bus")
        #expect(!probe.reachable)
        #expect(probe.description.contains("not reachable"))
    }
}
