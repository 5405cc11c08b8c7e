import Capture
/// One portal request: a method call that returns at once with a request
/// object, and answers later through that object's `Response` signal.
///
/// The signal can come before the method's reply, so the match rule for the
/// path the portal will use is added before the call is made.
struct PortalRequest {
    /// What the `Response` signal's first argument means.
    enum Outcome: UInt32 {
        case success = 0
        case cancelled = 1
        case failed = 2
    }

    let link: DBusLink
    /// The method, e.g. "CreateSession"; it takes `handle_token` in its options.
    let member: String
    /// How long the person (or the portal) may take to answer.
    let timeout: Duration
    /// Said when nothing answers in time, e.g. "Nobody chose a screen in the screen-share picker".
    let silence: String

    /// A token that is a valid object path element, unique within this process.
    static func newToken(_ prefix: String) -> String {
        "screenshare_\(prefix)_\(UInt32.random(in: 0 ... .max))"
    }

    /// Calls the method with the arguments `build` makes from a fresh handle
    /// token, then waits for the answer and returns its results.
    func perform(_ build: (_ handleToken: String) -> [DBusValue]) throws(CaptureError) -> [String: DBusValue] {
        let token = Self.newToken("request")
        let expected = PortalNames.requestPath(sender: link.uniqueName, token: token)
        var paths = [expected]
        try link.addMatch(Self.rule(expected))
        defer { for path in paths { link.removeMatch(Self.rule(path)) } }

        let call = DBusEnvelope.methodCall(destination: PortalNames.busName, path: PortalNames.objectPath,
                                           interface: PortalNames.screenCast, member: member, arguments: build(token))
        let reply = try link.call(call, timeout: Self.callTimeout, what: "The screen-share portal's \(member)")
        // Portals before version 0.9 chose their own path; follow whichever they name.
        if let handle = reply.arguments.first?.string, handle != expected {
            try link.addMatch(Self.rule(handle))
            paths.append(handle)
        }
        return try awaitResponse(on: Set(paths))
    }

    /// The method's immediate reply only names the request object, so a
    /// short limit suffices; the person's answer gets `timeout`.
    private static let callTimeout: Duration = .seconds(10)

    private func awaitResponse(on paths: Set<String>) throws(CaptureError) -> [String: DBusValue] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = link.nextMessage(waitingUpTo: deadline - ContinuousClock.now) else {
                guard link.isConnected else {
                    throw CaptureError(.permanent, "The D-Bus session bus went away while waiting for the screen-share portal's \(member)")
                }
                continue
            }
            guard message.kind == .signal, message.interface == PortalNames.request, message.member == "Response",
                  let path = message.path, paths.contains(path) else { continue }
            let arguments = message.arguments
            let code = arguments.first?.uint32 ?? Outcome.failed.rawValue
            switch Outcome(rawValue: code) {
            case .success:
                return arguments.dropFirst().first?.dictionary ?? [:]
            case .cancelled:
                throw CaptureError(.permanent, "The screen-share picker was cancelled")
            case .failed, nil:
                throw CaptureError(.permanent, "The screen-share portal ended \(member) without sharing (its answer was \(code)); the desktop's portal backend may have failed, see its log (journalctl --user -u xdg-desktop-portal)")
            }
        }
        // Take the picker down rather than leave it waiting for nobody.
        for path in paths {
            try? link.send(.methodCall(destination: PortalNames.busName, path: path, interface: PortalNames.request, member: "Close"))
        }
        let (seconds, attoseconds) = timeout.components
        let limit = attoseconds == 0 ? "\(seconds) s" : "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
        throw CaptureError(.permanent, "\(silence) within \(limit). Start the share again to get a new picker")
    }

    private static func rule(_ path: String) -> String {
        "type='signal',interface='\(PortalNames.request)',member='Response',path='\(path)'"
    }
}
