import Capture
import Events

/// What the share shows, as the call client hears it in the replies to
/// `start` and `setSource` and in a `sharing` event when it changes (a
/// shared window resized, a PipeWire stream's size settled).
struct SharedSource: Equatable {
    let name: String
    let subject: CaptureSubject
    let width: Int
    let height: Int

    init(_ source: any CaptureSource) {
        name = source.name
        subject = source.subject
        (width, height) = source.frameSize
    }

    /// Window ids are written in hex everywhere in X tools (xwininfo, xdotool, xprop).
    static func hex(_ id: UInt32) -> String {
        "0x" + String(id, radix: 16)
    }

    var json: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("source", .string(name)), ("kind", .string(subject.kind.rawValue))]
        if width > 0 && height > 0 { fields += [("width", .int(width)), ("height", .int(height))] }
        switch subject.kind {
        case .monitor: if let name = subject.name { fields.append(("monitor", .string(name))) }
        case .window: if let name = subject.name { fields.append(("title", .string(name))) }
        case .generated, .screen, .region, .node: break
        }
        if let window = subject.window { fields.append(("window", .string(SharedSource.hex(window)))) }
        if let node = subject.node { fields.append(("node", .int(Int(node)))) }
        return fields
    }
}
