import Capture
import Foundation
import Media
import Synchronization

/// Records what a capture delivers, in order, keeping a copy of the last frame.
final class RecordingSink: CaptureSink {
    enum Event {
        case frame(width: Int, height: Int, captured: Instant)
        case idle
        case failure(CaptureError)
    }

    struct Frame {
        var width = 0
        var height = 0
        var pixels: [UInt32] = []

        /// The pixel at (x, y) as 0xRRGGBB (the padding byte dropped).
        func colour(x: Int, y: Int) -> UInt32 {
            pixels[y * width + x] & 0x00FF_FFFF
        }
    }

    struct State {
        var events: [Event] = []
        var last = Frame()
        var frames: Int { events.filter { if case .frame = $0 { true } else { false } }.count }
        var idles: Int { events.filter { if case .idle = $0 { true } else { false } }.count }
        /// When each frame was captured (the capture's clock), in order.
        var captureTimes: [Instant] { events.compactMap { if case .frame(_, _, let at) = $0 { at } else { nil } } }
        var failure: CaptureError? {
            for case .failure(let error) in events { return error }
            return nil
        }
    }

    let state = Mutex(State())
    /// A wake for whatever the capture delivers, so a wait re-checks at once rather than polling.
    /// Only the newest is kept: a waiter wants to know that something came, not how much.
    private let deliveries: AsyncStream<Void>
    private let delivered: AsyncStream<Void>.Continuation

    init() {
        (deliveries, delivered) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func captured(_ surface: Surface) {
        record { state in
            state.last.width = surface.width
            state.last.height = surface.height
            state.last.pixels = Array(UnsafeBufferPointer(
                start: surface.pixels.assumingMemoryBound(to: UInt32.self), count: surface.width * surface.height))
            state.events.append(.frame(width: surface.width, height: surface.height, captured: surface.captureTime))
        }
    }

    func captureIdle() {
        record { $0.events.append(.idle) }
    }

    func captureFailed(_ error: CaptureError) {
        record { $0.events.append(.failure(error)) }
    }

    private func record(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
        delivered.yield()
    }

    var snapshot: State { state.withLock { $0 } }

    /// Waits until `condition` holds, or `timeout` passes; returns whether it held. The condition
    /// is checked as each delivery comes; the deadline wakes the wait once, to give up.
    func wait(upTo timeout: Duration = .seconds(3), until condition: (State) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        let alarm = Task { [delivered] in
            try await Task.sleep(until: deadline, clock: .continuous)
            delivered.yield()
        }
        defer { alarm.cancel() }
        var wakes = deliveries.makeAsyncIterator()
        while !state.withLock({ condition($0) }) {
            guard ContinuousClock.now < deadline else { return false }
            _ = await wakes.next()
        }
        return true
    }

    /// An output into a pool as large as a share's (1920×1920 surfaces, so windows can grow).
    func output(clock: any MonotonicClock = SystemClock()) -> CaptureOutput {
        let side = CaptureLimits.maxLongSide
        return CaptureOutput(pool: SurfacePool(width: side, height: side), clock: clock, sink: self)
    }
}
