import Foundation
import Testing

/// Each program links only the C libraries of the modules on its path
/// (docs/architecture.md): the receiver captures nothing, the sender decodes
/// nothing. Read from the programs' own dynamic section (`readelf -d`), not
/// `ldd`, whose list includes what the libraries themselves pull in.
@Suite struct LinkFootprintTests {
    static func needed(_ program: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        process.arguments = ["-d", ManagedProcess.binaries.appendingPathComponent(program).path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test func receiverLinksNoCaptureLibraries() throws {
        let libraries = try LinkFootprintTests.needed("screen-receiver")
        #expect(libraries.contains { $0.hasPrefix("libavcodec") }, "the receiver decodes with libavcodec: \(libraries)")
        for capture in ["libxcb", "libpipewire", "libdbus"] {
            #expect(!libraries.contains { $0.hasPrefix(capture) }, "screen-receiver links \(capture): \(libraries)")
        }
    }

    @Test func senderLinksNoDecoder() throws {
        let libraries = try LinkFootprintTests.needed("screenshare")
        #expect(libraries.contains { $0.hasPrefix("libx264") }, "the sender encodes with libx264: \(libraries)")
        #expect(!libraries.contains { $0.hasPrefix("libavcodec") }, "screenshare links libavcodec: \(libraries)")
    }
}
