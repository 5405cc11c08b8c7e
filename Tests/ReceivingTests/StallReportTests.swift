import Events
import Foundation
import Media
import Receiving
import Testing
import Transport

/// The stall reports `screen-receiver` prints for its call client (docs/behaviour.md §6.1), from
/// the real receiver on a manual clock: nothing ever arrives, so its view stalls from the start.
@Suite(.serialized) struct StallReportTests {
    final class Lines: @unchecked Sendable {
        // Safety: `written` is guarded by `condition`.
        private var written: [String] = []
        private let condition = NSCondition()

        /// The receiver's output, from its thread.
        func append(_ line: String) {
            condition.lock()
            written.append(line)
            condition.broadcast()
            condition.unlock()
        }

        /// The `report` events so far.
        private var reports: [[String: Any]] {
            written.compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      object["event"] as? String == "report" else { return nil }
                return object
            }
        }

        /// Waits for the receiver's thread to write `count` reports (or 20 s of real time, should it never).
        func waitForReports(_ count: Int) -> [[String: Any]] {
            let deadline = Date(timeIntervalSinceNow: 20)
            condition.lock()
            defer { condition.unlock() }
            while reports.count < count, condition.wait(until: deadline) {}
            return reports
        }
    }

    @Test func reportHeldForThreeMinutes_isWithdrawnNotCleared() throws {
        // Stalled from the start: reported after 4 s; after 3 minutes more the
        // report is withdrawn, and that must not read as "screenStalled: false".
        let clock = ManualClock()
        let lines = Lines()
        let output = EventOutput(format: .json, level: .error) { line, _ in lines.append(line) }
        let receiver = try ScreenReceiver(options: .init(listen: SocketAddress(host: "127.0.0.1", port: 0), key: nil),
                                          output: output, clock: clock)
        let done = DispatchSemaphore(value: 0)
        Thread {
            receiver.run()
            done.signal()
        }.start()
        defer {
            receiver.stop()
            done.wait()
        }
        clock.advance(by: .seconds(5))
        let stalled = lines.waitForReports(1)
        #expect(stalled.first?["screenStalled"] as? Bool == true)
        clock.advance(by: .seconds(181))
        let reports = lines.waitForReports(2)
        try #require(reports.count == 2, "reports: \(reports)")
        #expect(reports[1]["screenStalled"] as? Bool != false, "a withdrawn report is no clearing")
        #expect(reports[1]["expired"] as? Bool == true)
    }
}
