import Capture
import Media
import Synchronization

/// One source's way into the share's frame hub (docs/behaviour.md §10.4). When the share switches to
/// another source the old feed is closed first, so a frame, an idle or a
/// failure the old source reports while it is being stopped (a portal session
/// closing says so) reaches nobody: only the current source speaks for the capture.
final class CaptureFeed: CaptureSink {
    private let sink: any CaptureSink
    private let open = Atomic(true)

    init(into sink: any CaptureSink) {
        self.sink = sink
    }

    func close() {
        open.store(false, ordering: .sequentiallyConsistent)
    }

    private var isOpen: Bool { open.load(ordering: .sequentiallyConsistent) }

    func captured(_ surface: Surface) {
        if isOpen { sink.captured(surface) }
    }

    func captureIdle() {
        if isOpen { sink.captureIdle() }
    }

    func captureFailed(_ error: CaptureError) {
        if isOpen { sink.captureFailed(error) }
    }
}
