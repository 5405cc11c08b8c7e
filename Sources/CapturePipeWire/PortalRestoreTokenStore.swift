import Capture

/// Where the portal's restore token comes from and goes back to: a file of
/// this user's (`share`), or the call client that holds it (`serve`).
public protocol PortalRestoreTokenStore: Sendable {
    /// The token to present to SelectSources; nil opens the picker.
    func load() -> String?
    /// The token Start handed back, for the next share.
    func save(_ token: String) throws(CaptureError)
}

extension PortalRestoreTokenFile: PortalRestoreTokenStore {}
