import Foundation
import Capture
import CapturePipeWire
import TestSupport
import Synchronization

/// A `PortalStandIn` serving on its own thread, keeping the lines it reports.
final class TestPortal {
    private final class Log: Sendable {
        let lines = Mutex<[String]>([])
    }

    private let standIn: PortalStandIn
    private let log = Log()
    private let finished = DispatchSemaphore(value: 0)

    init(bus: TestSessionBus, node: UInt32, pipeWireSocket: String, start: PortalStandIn.StartAnswer = .choose,
         cursorModes: PortalCursorModes = [.hidden, .embedded, .metadata]) throws {
        let log = self.log
        standIn = try PortalStandIn(.init(busAddress: bus.address, node: node, pipeWireSocket: pipeWireSocket,
                                          start: start, cursorModes: cursorModes) { line in
            log.lines.withLock { $0.append(line) }
        })
        let standIn = self.standIn
        let finished = self.finished
        Thread.detachNewThread {
            standIn.run()
            finished.signal()
        }
    }

    var lines: [String] { log.lines.withLock { $0 } }

    func stop() {
        standIn.stop()
        finished.wait()
    }
}
