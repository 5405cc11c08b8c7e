import Capture

/// A restore token the call client keeps: the one it gave is presented to the
/// portal, and the one the portal hands back goes to the client, with whether
/// the portal honoured the one presented (no picker was shown).
public struct HandedRestoreToken: PortalRestoreTokenStore {
    public let token: String?
    private let handBack: @Sendable (_ token: String, _ restored: Bool) -> Void

    public init(_ token: String?, handBack: @escaping @Sendable (_ token: String, _ restored: Bool) -> Void) {
        self.token = token
        self.handBack = handBack
    }

    public func load() -> String? { token }

    public func save(_ returned: String) throws(CaptureError) {
        handBack(returned, returned == token)
    }
}
