import Capture
import Events
import CapturePipeWire
import CaptureX11
import Synthetic

/// Turns `--source` (and the options that pick part of a screen) into a capture source.
enum SourceFactory {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What part of an X11 screen to share: `--monitor`, `--window`, `--region`.
    struct Selection: Sendable {
        var monitor: String?
        var window: UInt32?
        var region: (x: Int, y: Int, width: Int, height: Int)?
        /// Link to a PipeWire node ourselves, for a daemon with no session manager.
        var linkPipeWire = false
        /// Ask the portal for a window rather than a monitor.
        var portalWindow = false
        var restoreTokenFile: String?
    }

    static func make(_ spec: String, size: (width: Int, height: Int), fps: Int, scenario: String,
                     selection: Selection = Selection(), captureStopsAfter: Duration? = nil,
                     output: EventOutput) throws -> any CaptureSource {
        let (kind, argument) = split(spec)
        switch kind {
        case "synthetic":
            guard let s = SyntheticScreen.Scenario(rawValue: scenario) else {
                throw Failure(description: "unknown synthetic scenario \"\(scenario)\": use demo, motion or still")
            }
            let stall = captureStopsAfter.map { UInt64($0.inSeconds * Double(min(fps, 30))) }
            return SyntheticSource(width: size.width, height: size.height, fps: fps, scenario: s, stallAfterFrame: stall)
        case "x11":
            return X11Source(display: argument, target: try x11Target(selection), fps: fps) { note in
                output.log(.info, "capture", note)
            }
        case "pipewire":
            var node: UInt32?
            if let argument {
                guard let id = UInt32(argument) else { throw Failure(description: "--source pipewire:NODE needs a numeric node id, not \"\(argument)\"") }
                node = id
            }
            return PipeWireSource(nodeID: node, fps: fps, linksItself: selection.linkPipeWire)
        case "portal":
            let tokenFile = PortalRestoreTokenFile(path: selection.restoreTokenFile ?? PortalRestoreTokenFile.defaultPath())
            let options = ScreenCastPortal.Options(sourceTypes: selection.portalWindow ? .window : .monitor, restoreTokenFile: tokenFile) { note in
                output.log(.info, "capture", note)
            }
            return PortalSource(options, fps: fps, linksItself: selection.linkPipeWire)
        default:
            throw Failure(description: "unknown source \"\(spec)\": use synthetic, x11[:DISPLAY], pipewire[:NODE] or portal")
        }
    }

    static func split(_ spec: String) -> (String, String?) {
        guard let colon = spec.firstIndex(of: ":") else { return (spec, nil) }
        return (String(spec[..<colon]), String(spec[spec.index(after: colon)...]))
    }

    private static func x11Target(_ s: Selection) throws -> X11Target {
        switch (s.monitor, s.window, s.region) {
        case (nil, nil, nil): return .screen
        case (let m?, nil, nil): return .monitor(m)
        case (nil, let w?, nil): return .window(w)
        case (nil, nil, let r?): return .region(x: r.x, y: r.y, width: r.width, height: r.height)
        default: throw Failure(description: "give at most one of --monitor, --window and --region")
        }
    }
}
