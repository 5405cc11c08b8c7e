import Foundation
import Media

/// A thread that calls `body` at a steady frame rate until stopped. Sources
/// that poll (synthetic, X11) run on one; a tick that runs late is not
/// made up for with a burst.
public final class FrameTicker: @unchecked Sendable {
    // Safety: `running` and `thread` are guarded by `lock`.
    private let lock = NSCondition()
    private var running = false
    private var finished = true
    private let fps: Int
    private let name: String

    public init(fps: Int, name: String) {
        self.fps = max(1, fps)
        self.name = name
    }

    public func start(_ body: @escaping @Sendable (_ tick: UInt64) -> Void) {
        lock.lock()
        running = true
        finished = false
        lock.unlock()
        let period = 1.0 / Double(fps)
        let thread = Thread { [self] in
            var tick: UInt64 = 0
            var next = Date()
            while isRunning {
                body(tick)
                tick += 1
                next += period
                let now = Date()
                if next < now { next = now }
                lock.lock()
                if running { _ = lock.wait(until: next) }
                lock.unlock()
            }
            lock.lock()
            finished = true
            lock.broadcast()
            lock.unlock()
        }
        thread.name = name
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    public func stop() {
        lock.lock()
        running = false
        lock.broadcast()
        while !finished { lock.wait() }
        lock.unlock()
    }
}
