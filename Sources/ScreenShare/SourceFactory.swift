import Capture

/// Turns `--source` into a capture source.
enum SourceFactory {
    struct UnknownSource: Error, CustomStringConvertible {
        let name: String
        var description: String { "unknown source \"\(name)\": use synthetic" }
    }

    static func make(_ spec: String, size: (width: Int, height: Int), fps: Int, scenario: String,
                     captureStopsAfter: Duration? = nil) throws -> any CaptureSource {
        switch spec {
        case "synthetic":
            guard let s = SyntheticScreen.Scenario(rawValue: scenario) else {
                throw UnknownSource(name: "synthetic scenario \(scenario)")
            }
            let stall = captureStopsAfter.map { UInt64($0.inSeconds * Double(min(fps, 30))) }
            return SyntheticSource(width: size.width, height: size.height, fps: fps, scenario: s, stallAfterFrame: stall)
        default:
            throw UnknownSource(name: spec)
        }
    }
}
