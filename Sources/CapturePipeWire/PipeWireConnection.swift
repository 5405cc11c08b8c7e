#if canImport(Glibc)
import Glibc
#endif
import CPipeWire
import Capture

/// One connection to a PipeWire daemon with its own loop thread. Stream
/// callbacks run on that thread with the loop's lock held; everyone else
/// takes the lock (`locked`) before touching PipeWire objects.
final class PipeWireConnection {
    let loop: OpaquePointer
    let context: OpaquePointer
    let core: OpaquePointer
    private var running = false

    /// `remoteFD` is taken over (PipeWire closes it). A connection cannot be
    /// picked up again once a context has left it, so each run needs a fresh one.
    init(remoteFD: Int32?, threadName: String) throws(CaptureError) {
        PipeWireRemote.initializeLibrary()
        guard let loop = pw_thread_loop_new(threadName, nil) else {
            throw CaptureError(.temporary, "Could not start a PipeWire loop: \(String(cString: strerror(errno)))")
        }
        guard let context = pw_context_new(pw_thread_loop_get_loop(loop), nil, 0) else {
            pw_thread_loop_destroy(loop)
            throw CaptureError(.temporary, "Could not make a PipeWire context: \(String(cString: strerror(errno)))")
        }
        let core: OpaquePointer?
        if let remoteFD {
            core = pw_context_connect_fd(context, remoteFD, nil, 0)
        } else {
            core = pw_context_connect(context, nil, 0)
        }
        guard let core else {
            let reason = String(cString: strerror(errno))
            pw_context_destroy(context)
            pw_thread_loop_destroy(loop)
            throw CaptureError(.temporary, "Could not connect to PipeWire: \(reason). Is the pipewire service running for this user?")
        }
        self.loop = loop
        self.context = context
        self.core = core
    }

    func start() {
        pw_thread_loop_start(loop)
        running = true
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pw_thread_loop_lock(loop)
        defer { pw_thread_loop_unlock(loop) }
        return try body()
    }

    /// Stops the loop thread; after this no callback runs, and objects may be
    /// destroyed without the lock.
    func stopThread() {
        if running { pw_thread_loop_stop(loop) }
        running = false
    }

    deinit {
        stopThread()
        pw_core_disconnect(core)
        pw_context_destroy(context)
        pw_thread_loop_destroy(loop)
    }
}
