import Foundation
import Synchronization

/// Collects what a source logs.
final class Notes: Sendable {
    private let lines = Mutex([String]())

    @Sendable func add(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }
}
