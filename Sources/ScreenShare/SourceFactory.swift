import Capture

/// Turns `--source` into a capture source.
enum SourceFactory {
    struct UnknownSource: Error, CustomStringConvertible {
        let name: String
        var description: String { "unknown source \"\(name)\": use synthetic" }
    }

    static func make(_ spec: String, size: (width: Int, height: Int), fps: Int, scenario: String) throws -> any CaptureSource {
        switch spec {
        case "synthetic":
            guard let s = SyntheticScreen.Scenario(rawValue: scenario) else {
                throw UnknownSource(name: "synthetic scenario \(scenario)")
            }
            return SyntheticSource(width: size.width, height: size.height, fps: fps, scenario: s)
        default:
            throw UnknownSource(name: spec)
        }
    }
}
