import Foundation
import Capture
import CapturePipeWire
import TestSupport

/// A restore-token file in a directory of the test's own (not yet made, as on a first run).
struct TestTokenFile {
    let directory = URL(fileURLWithPath: "/tmp/portal-token-\(UUID().uuidString.prefix(8))")
    var file: PortalRestoreTokenFile { PortalRestoreTokenFile(path: directory.appendingPathComponent("state/restore-token").path) }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
