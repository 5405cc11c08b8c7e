import Synthetic
import Foundation
import YUV

/// What a person sees: each decoded frame whose stamp reads is compared with
/// the source frame it was made from, regenerated here (the synthetic screen
/// is deterministic), as luma scaled to the decoded size.
///
/// The work runs on a thread of its own at a lower priority. The receive
/// loop hands over a copy of the decoded luma through a one-slot mailbox and
/// never waits: a frame offered while the thread is busy is not measured
/// (`dropped`), so measuring never slows decoding.
public final class QualityMeter: @unchecked Sendable {
    // Safety: the mailbox, the spare buffer and the totals are guarded by
    // `condition`; the screen, scratch planes and comparison belong to the thread.
    public struct Source: Sendable {
        public var scenario: SyntheticScreen.Scenario
        public var width: Int
        public var height: Int
        public var fps: Int
        public var seed: UInt64

        public init(scenario: SyntheticScreen.Scenario, width: Int, height: Int, fps: Int = 30, seed: UInt64 = 1) {
            self.scenario = scenario
            self.width = width
            self.height = height
            self.fps = fps
            self.seed = seed
        }

        /// By the scenario's name (`demo`, `motion`, `still`); nil for another name.
        public init?(scenarioName: String, width: Int, height: Int, fps: Int = 30, seed: UInt64 = 1) {
            guard let scenario = SyntheticScreen.Scenario(rawValue: scenarioName) else { return nil }
            self.init(scenario: scenario, width: width, height: height, fps: fps, seed: seed)
        }
    }

    /// Running means over the measured frames.
    public struct Summary: Sendable, Equatable {
        public var frames = 0
        public var dropped = 0
        public var ssim = 0.0
        public var psnr = 0.0
        public var ssimText = 0.0
        public var psnrText = 0.0
        /// The last measured frame's figures.
        public var lastFrame: UInt32?
        public var lastSSIM = 0.0
        public var lastSSIMText = 0.0
    }

    private struct Job {
        var frame: UInt32
        var luma: [UInt8]
        var width: Int
        var height: Int
    }

    public let source: Source
    private let condition = NSCondition()
    private var pending: Job?
    private var busy = false
    private var spare: [UInt8] = []
    private var totals = Summary()
    private var sums = (ssim: 0.0, psnr: 0.0, ssimText: 0.0, psnrText: 0.0)
    private var stopping = false
    private var thread: Thread?

    // The measuring thread's own.
    private var screen: SyntheticScreen?
    private var bgrx: UnsafeMutableRawPointer?
    private var fullLuma: [UInt8] = []
    private var scaledLuma: [UInt8] = []
    private let comparison = LumaComparison()

    public init(source: Source) {
        self.source = source
        let thread = Thread { self.work() }
        thread.name = "quality"
        self.thread = thread
        thread.start()
    }

    deinit {
        bgrx?.deallocate()
    }

    /// Offers decoded frame `frame` (its stamp) for measuring; false when
    /// the thread is still busy with an earlier one (the frame is dropped).
    @discardableResult
    public func offer(frame: UInt32, luma: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int) -> Bool {
        condition.lock()
        guard pending == nil, !busy, !stopping else {
            totals.dropped += 1
            condition.unlock()
            return false
        }
        var buffer = spare
        spare = []
        condition.unlock()
        if buffer.count != width * height { buffer = [UInt8](repeating: 0, count: width * height) }
        buffer.withUnsafeMutableBufferPointer { b in
            for y in 0..<height {
                (b.baseAddress! + y * width).update(from: luma + y * stride, count: width)
            }
        }
        condition.lock()
        pending = Job(frame: frame, luma: buffer, width: width, height: height)
        condition.signal()
        condition.unlock()
        return true
    }

    public var summary: Summary {
        condition.lock()
        defer { condition.unlock() }
        return totals
    }

    /// Waits until the thread has measured what it was handed (for tests).
    public func drain(timeout: TimeInterval = 10) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        while (pending != nil || busy) && Date() < deadline { _ = condition.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.05))) }
        condition.unlock()
    }

    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        lowerPriority()
        while true {
            condition.lock()
            while pending == nil && !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            var job = pending!
            pending = nil
            busy = true
            condition.unlock()

            let result = measure(&job)

            condition.lock()
            busy = false
            spare = job.luma
            if let result {
                totals.frames += 1
                sums.ssim += result.whole.ssim
                sums.psnr += result.whole.psnr
                sums.ssimText += result.text.ssim
                sums.psnrText += result.text.psnr
                let n = Double(totals.frames)
                totals.ssim = sums.ssim / n
                totals.psnr = sums.psnr / n
                totals.ssimText = sums.ssimText / n
                totals.psnrText = sums.psnrText / n
                totals.lastFrame = job.frame
                totals.lastSSIM = result.whole.ssim
                totals.lastSSIMText = result.text.ssim
            }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Nice 10 for this thread only (Linux applies setpriority to a thread id),
    /// so measuring yields the CPU to the sender and decoder sharing the machine.
    private func lowerPriority() {
        #if os(Linux)
        // /proc/thread-self links to PID/task/TID; Glibc's gettid is not visible to Swift here.
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
              let tid = link.split(separator: "/").last.flatMap({ id_t(String($0)) }) else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, 10)
        #endif
    }

    /// Regenerates frame `job.frame`, brings its luma to the decoded size and compares.
    private func measure(_ job: inout Job) -> (whole: LumaComparison.Result, text: LumaComparison.Result)? {
        let s = source
        if screen == nil {
            screen = SyntheticScreen(width: s.width, height: s.height, fps: s.fps, scenario: s.scenario, seed: s.seed)
            bgrx = .allocate(byteCount: s.width * s.height * 4, alignment: 64)
            fullLuma = [UInt8](repeating: 0, count: s.width * s.height)
        }
        guard let screen, let bgrx, job.width >= 16, job.height >= 16 else { return nil }
        screen.render(frame: UInt64(job.frame), into: bgrx, stride: s.width * 4)
        fullLuma.withUnsafeMutableBufferPointer { y in
            PixelConverter.luma(ofBGRx: bgrx, stride: s.width * 4, width: s.width, height: s.height,
                                into: y.baseAddress!, destinationStride: s.width)
        }
        let same = job.width == s.width && job.height == s.height
        if !same {
            if scaledLuma.count != job.width * job.height { scaledLuma = [UInt8](repeating: 0, count: job.width * job.height) }
            fullLuma.withUnsafeBufferPointer { f in
                scaledLuma.withUnsafeMutableBufferPointer { t in
                    PixelConverter.scaleLuma(f.baseAddress!, stride: s.width, width: s.width, height: s.height,
                                             into: t.baseAddress!, destinationStride: job.width,
                                             width: job.width, height: job.height)
                }
            }
        }
        let regions = QualityMeter.regions(screen: screen, frame: UInt64(job.frame), decodedWidth: job.width, decodedHeight: job.height)
        let results = (same ? fullLuma : scaledLuma).withUnsafeBufferPointer { r in
            job.luma.withUnsafeBufferPointer { d in
                comparison.compare(reference: r.baseAddress!, referenceStride: job.width,
                                   decoded: d.baseAddress!, decodedStride: job.width,
                                   width: job.width, height: job.height, regions: regions)
            }
        }
        return (results[0], results[1])
    }

    /// The whole picture below the frame stamp's rows, and the text area
    /// (`textRegion` without the dragged window), in decoded pixels.
    static func regions(screen: SyntheticScreen, frame: UInt64, decodedWidth: Int, decodedHeight: Int)
        -> [(area: LumaComparison.Rect, excluding: [LumaComparison.Rect])] {
        let from = (screen.width, screen.height), to = (decodedWidth, decodedHeight)
        let stamp = LumaComparison.Rect(x: 0, y: 0, width: screen.width, height: FrameStamp.height).scaled(from: from, to: to)
        let below = LumaComparison.Rect(x: 0, y: stamp.height, width: decodedWidth, height: decodedHeight - stamp.height)
        let t = screen.textRegion
        var text = LumaComparison.Rect(x: t.x, y: t.y, width: t.width, height: t.height).scaled(from: from, to: to)
        // The text area starts below the stamp too, even when scaling rounds its top up into it.
        let top = max(text.y, stamp.height)
        text = LumaComparison.Rect(x: text.x, y: top, width: text.width, height: text.y + text.height - top)
        let window = screen.windowRect(at: frame).map {
            LumaComparison.Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height).scaled(from: from, to: to)
        }
        return [(below, []), (text, window.map { [$0] } ?? [])]
    }
}
