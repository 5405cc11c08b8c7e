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
        public var restoreTokenFile: PortalRestoreTokenFile?
        /// Nil is the session bus of `DBUS_SESSION_BUS_ADDRESS`.
        public var busAddress: String?
        /// Start waits for the person to choose in the picker.
        public var startTimeout: Duration
        /// The other steps need no person, only the portal.
        public var requestTimeout: Duration

        public init(sourceTypes: PortalSourceTypes = .monitor,
                    restoreTokenFile: PortalRestoreTokenFile? = PortalRestoreTokenFile(path: PortalRestoreTokenFile.defaultPath()),
                    busAddress: String? = nil, startTimeout: Duration = .seconds(60), requestTimeout: Duration = .seconds(10)) {
            self.sourceTypes = sourceTypes
            self.restoreTokenFile = restoreTokenFile
            self.busAddress = busAddress
            self.startTimeout = startTimeout
            self.requestTimeout = requestTimeout
        }
    }

    /// Reading the portal's properties needs no person; a live portal answers in milliseconds.
    private static let propertiesTimeout: Duration = .seconds(5)
    /// SelectSources' persist_mode: keep the permission until the person revokes it.
    private static let persistUntilRevoked: UInt32 = 2

    public let options: Options
    private let link: DBusLink
    private var session: String?
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
        if let version = offered.version, version >= PortalProbe.firstVersionWithRestore {
            choices.append(("persist_mode", .uint32(Self.persistUntilRevoked)))
            if let token = options.restoreTokenFile?.load() {
                choices.append(("restore_token", .string(token)))
            }
        }
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
        if let token = results["restore_token"]?.string, let file = options.restoreTokenFile {
            do throws(CaptureError) { try file.save(token) } catch { restoreTokenProblem = error }
        }
        return streams
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
        try? link.send(.methodCall(destination: PortalNames.busName, path: handle, interface: PortalNames.session, member: "Close"))
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
