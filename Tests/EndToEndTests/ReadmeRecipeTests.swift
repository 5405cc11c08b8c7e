import Foundation
import Testing

/// Every shell example in README.md runs as it stands (Tools/readme-recipes: each in a network
/// namespace and a /tmp of its own, the benchmarks with short durations), and does what the
/// README says: frames decoded, GStreamer and ffmpeg decoding, serve answering, the benchmarks' tables.
@Suite(.serialized) struct ReadmeRecipeTests {
    static let tool = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/readme-recipes").path
    /// The benchmarks are most of it: a few minutes on a loaded 2-core machine.
    static let limit: TimeInterval = 1500

    @Test(.enabled(if: getuid() == 0, "needs root for its network namespaces"))
    func everyReadmeRecipe_runsAsItStands() throws {
        let log = NSTemporaryDirectory() + "readme-recipes-\(UUID().uuidString).log"
        let run = try ManagedProcess("/usr/bin/python3", [Self.tool, "--bin", ManagedProcess.binaries.path], stderrTo: log)
        let status = run.waitForExit(timeout: Self.limit)
        print(run.lines.joined(separator: "\n"))
        #expect(status == 0, "\(run.lines.suffix(12).joined(separator: "\n"))")
        let summary = try #require(run.lines.last { $0.hasSuffix(" failed") })
        #expect(summary.hasSuffix(" 0 failed") && !summary.hasPrefix("0 passed"), "\(summary)")
    }

    @Test func everyShellBlockOfTheReadme_isARecipeWithItsCheck() throws {
        let list = try ManagedProcess("/usr/bin/python3", [Self.tool, "--list"])
        #expect(list.waitForExit(timeout: 10) == 0)
        let names = list.lines.compactMap { $0.split(separator: ":").first.map(String.init) }
        #expect(names == ["demo", "share", "x11", "gstreamer", "ffmpeg", "serve", "benchmarks"], "\(list.lines)")
    }
}
