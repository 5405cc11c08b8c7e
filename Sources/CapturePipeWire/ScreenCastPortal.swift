import Capture
/// The xdg-desktop-portal ScreenCast client: asks the desktop (and through
/// it the person) for a screen or window, and gets a PipeWire node and a
/// connection to read it. The steps run in order: `createSession`,
/// `selectSources`, `start`, then `openPipeWireRemote` as often as a fresh
/// connection is needed. Closing (or dropping) the portal ends the share.
///
/// Blocking and single-owner: each step waits on the session bus for the
/// portal's answer, so one thread at a time drives it.
public final class ScreenCastPortal {
    public struct Options: Sendable {
        public var sourceTypes: PortalSourceTypes
        /// Nil keeps no token: the picker opens every time.
        public var restoreTokens: (any PortalRestoreTokenStore)?
        /// Nil is the session bus of `DBUS_SESSION_BUS_ADDRESS`.
        public var busAddress: String?
        /// Start waits for the person to choose in the picker.
        public var startTimeout: Duration
        /// The other steps need no person, only the portal.
        public var requestTimeout: Duration
        /// Told, in words for the log, what became of the saved restore token.
        public var notes: @Sendable (String) -> Void

        public init(sourceTypes: PortalSourceTypes = .monitor,
                    restoreTokens: (any PortalRestoreTokenStore)? = PortalRestoreTokenFile(path: PortalRestoreTokenFile.defaultPath()),
                    busAddress: String? = nil, startTimeout: Duration = .seconds(60), requestTimeout: Duration = .seconds(10),
                    notes: @escaping @Sendable (String) -> Void = { _ in }) {
            self.sourceTypes = sourceTypes
            self.restoreTokens = restoreTokens
            self.busAddress = busAddress
            self.startTimeout = startTimeout
            self.requestTimeout = requestTimeout
            self.notes = notes
        }
    }

    /// Why a started session ended from the desktop's side.
    public static let closedByDesktop = "The desktop stopped the screen share"
    public static let busLost = "The connection to the desktop's screen-share portal (the D-Bus session bus) was lost"

    /// Reading the portal's properties needs no person; a live portal answers in milliseconds.
    private static let propertiesTimeout: Duration = .seconds(5)
    /// SelectSources' persist_mode: keep the permission until the person revokes it.
    private static let persistUntilRevoked: UInt32 = 2

    public let options: Options
    private let link: DBusLink
    private var session: String?
    /// The saved token SelectSources presented, to tell after Start whether the portal honoured it.
    private var presentedToken: String?
    /// Set when Start succeeded but its new restore token could not be kept;
    /// the share works and the next one asks again.
    public private(set) var restoreTokenProblem: CaptureError?

    public init(_ options: Options = Options()) throws(CaptureError) {
        self.options = options
        link = try DBusLink(address: options.busAddress)
    }

    deinit {
        close()
    }

    /// Asks the portal what it offers. Never throws: a missing portal is an answer.
    public static func probe(busAddress: String? = nil) -> PortalProbe {
        do {
            return try PortalProbe(properties: properties(on: DBusLink(address: busAddress)))
        } catch {
            return .unreachable(error.message)
        }
    }

    public func createSession() throws(CaptureError) {
        let sessionToken = PortalRequest.newToken("session")
        let results = try request("CreateSession", timeout: options.requestTimeout,
                                  silence: "The screen-share portal did not open a session") { handleToken in
            [.vardict([("handle_token", .string(handleToken)), ("session_handle_token", .string(sessionToken))])]
        }
        guard let handle = results["session_handle"]?.string else {
            throw CaptureError(.permanent, "The screen-share portal opened a session but did not say which; its answer was incomplete")
        }
        // The portal broadcasts Closed: without the rule the bus would not pass it on.
        try link.addMatch(Self.closedRule(handle))
        session = handle
    }

    /// Chooses what may be shared, how the pointer is shown, and presents the saved restore token.
    public func selectSources() throws(CaptureError) {
        let handle = try currentSession()
        let offered = try PortalProbe(properties: Self.properties(on: link))
        guard offered.sourceTypes.isEmpty || !offered.sourceTypes.isDisjoint(with: options.sourceTypes) else {
            throw CaptureError(.permanent, "The screen-share portal cannot share a \(options.sourceTypes); it offers \(offered.sourceTypes)")
        }
        var choices: [(String, DBusValue)] = [("types", .uint32(options.sourceTypes.rawValue)), ("multiple", .bool(false))]
        if let cursor = offered.cursorModes.preferred {
            choices.append(("cursor_mode", .uint32(cursor.rawValue)))
        }
        presentedToken = nil
        var token: String?
        if let version = offered.version, version >= PortalProbe.firstVersionWithRestore {
            choices.append(("persist_mode", .uint32(Self.persistUntilRevoked)))
            token = options.restoreTokens?.load()
        }
        guard let token else {
            try selectSources(handle, choices)
            return
        }
        do throws(CaptureError) {
            try selectSources(handle, choices + [("restore_token", .string(token))])
            presentedToken = token
        } catch {
            // xdg-desktop-portal refuses a token that is not one of its own (not a UUID) with an error
            // rather than ignoring it; the session is still unselected, so ask again without it.
            options.notes("The desktop refused the saved restore token (\(error.message)); the screen is chosen in its picker instead")
            try selectSources(handle, choices)
        }
    }

    private func selectSources(_ handle: String, _ choices: [(String, DBusValue)]) throws(CaptureError) {
        _ = try request("SelectSources", timeout: options.requestTimeout,
                        silence: "The screen-share portal did not take the choice of sources") { handleToken in
            [.objectPath(handle), .vardict(choices + [("handle_token", .string(handleToken))])]
        }
    }

    /// Shows the picker (unless a restore token lets the portal skip it) and
    /// returns the streams the person chose. Saves the new restore token.
    public func start() throws(CaptureError) -> [PortalStream] {
        let handle = try currentSession()
        let results = try request("Start", timeout: options.startTimeout,
                                  silence: "Nobody chose a screen in the screen-share picker") { handleToken in
            [.objectPath(handle), .string(""), .vardict([("handle_token", .string(handleToken))])]
        }
        let streams = (results["streams"]?.elements ?? []).compactMap(PortalStream.init)
        guard !streams.isEmpty else {
            throw CaptureError(.permanent, "The screen-share portal started but gave no screen to capture")
        }
        let token = results["restore_token"]?.string
        if let presented = presentedToken {
            // A restored session hands the same token back; an unknown one is dropped silently and the
            // picker asked instead, so a new token (or none) is how a refusal shows.
            options.notes(token == presented
                ? "The desktop restored the last choice from the saved restore token, without its picker"
                : "The desktop did not know the saved restore token, so the screen was chosen in its picker")
        }
        if let token, let store = options.restoreTokens {
            do throws(CaptureError) { try store.save(token) } catch { restoreTokenProblem = error }
        }
        return streams
    }

    /// Waits up to `limit` for the desktop to end the started session (its Stop button, or the screen
    /// going away) and says why it ended; nil while it goes on.
    public func endedByDesktop(waitingUpTo limit: Duration) -> String? {
        guard let handle = session else { return nil }
        let deadline = ContinuousClock.now + limit
        repeat {
            guard let message = link.nextMessage(waitingUpTo: deadline - ContinuousClock.now) else {
                return link.isConnected ? nil : Self.busLost
            }
            if message.kind == .signal, message.interface == PortalNames.session, message.member == "Closed", message.path == handle {
                session = nil
                return Self.closedByDesktop
            }
        } while ContinuousClock.now < deadline
        return nil
    }

    /// A new connection to PipeWire through which the started streams can be
    /// read. The caller owns the descriptor; each capture run needs its own.
    public func openPipeWireRemote() throws(CaptureError) -> Int32 {
        let handle = try currentSession()
        let call = DBusEnvelope.methodCall(destination: PortalNames.busName, path: PortalNames.objectPath,
                                           interface: PortalNames.screenCast, member: "OpenPipeWireRemote",
                                           arguments: [.objectPath(handle), .vardict([])])
        let reply = try link.call(call, timeout: options.requestTimeout, what: "Asking the screen-share portal for a PipeWire connection", failure: .temporary)
        guard case .unixFD(let descriptor) = reply.arguments.first, descriptor >= 0 else {
            throw CaptureError(.temporary, "The screen-share portal answered without a PipeWire connection; the D-Bus session bus may not pass file descriptors")
        }
        return descriptor
    }

    /// Ends the session; the portal stops the streams. Safe to call twice.
    public func close() {
        guard let handle = session else { return }
        session = nil
        link.removeMatch(Self.closedRule(handle))
        try? link.send(.methodCall(destination: PortalNames.busName, path: handle, interface: PortalNames.session, member: "Close"))
    }

    private static func closedRule(_ session: String) -> String {
        "type='signal',interface='\(PortalNames.session)',member='Closed',path='\(session)'"
    }

    private func currentSession() throws(CaptureError) -> String {
        guard let session else {
            throw CaptureError(.permanent, "No screen-share portal session: createSession must succeed first")
        }
        return session
    }

    private func request(_ member: String, timeout: Duration, silence: String,
                         _ build: (String) -> [DBusValue]) throws(CaptureError) -> [String: DBusValue] {
        try PortalRequest(link: link, member: member, timeout: timeout, silence: silence).perform(build)
    }

    private static func properties(on link: DBusLink) throws(CaptureError) -> [String: DBusValue] {
        let call = DBusEnvelope.methodCall(destination: PortalNames.busName, path: PortalNames.objectPath,
                                           interface: PortalNames.properties, member: "GetAll",
                                           arguments: [.string(PortalNames.screenCast)])
        let reply = try link.call(call, timeout: propertiesTimeout, what: "Asking the desktop for its screen-share portal")
        return reply.arguments.first?.dictionary ?? [:]
    }
}
