import Capture
import ControlProtocol
import Events
import CapturePipeWire
import CaptureX11
import Synthetic

/// Turns a source request (`share --source …`, serve's `start` and `setSource`) into a capture source.
enum SourceFactory {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `restoreTokens` is where the portal's token comes from and goes back to: a file for `share`,
    /// the call client for `serve`.
    static func make(_ request: SourceRequest, fps: Int, captureStopsAfter: Duration? = nil,
                     restoreTokens: any PortalRestoreTokenStore, output: EventOutput) throws -> any CaptureSource {
        switch request.kind {
        case .synthetic:
            guard let s = SyntheticScreen.Scenario(rawValue: request.scenario) else {
                throw Failure(description: "unknown synthetic scenario \"\(request.scenario)\": use demo, motion or still")
            }
            let stall = captureStopsAfter.map { UInt64($0.inSeconds * Double(min(fps, 30))) }
            return SyntheticSource(width: request.width, height: request.height, fps: fps, scenario: s, stallAfterFrame: stall)
        case .x11(let display):
            return X11Source(display: display, target: x11Target(request.part), fps: fps) { note in
                output.log(.info, "capture", note)
            }
        case .pipewire(let node):
            return PipeWireSource(nodeID: node, fps: fps, linksItself: request.linkPipeWire)
        case .portal:
            let options = ScreenCastPortal.Options(sourceTypes: request.portalWindow ? .window : .monitor, restoreTokens: restoreTokens) { note in
                output.log(.info, "capture", note)
            }
            return PortalSource(options, fps: fps, linksItself: request.linkPipeWire)
        }
    }

    private static func x11Target(_ part: SourceRequest.X11Part) -> X11Target {
        switch part {
        case .screen: .screen
        case .monitor(let name): .monitor(name)
        case .window(let id): .window(id)
        case .region(let x, let y, let width, let height): .region(x: x, y: y, width: width, height: height)
        }
    }
}
