/// The bus names, paths and interfaces of xdg-desktop-portal, shared by the
/// client and the stand-in so the two cannot drift apart.
enum PortalNames {
    static let busName = "org.freedesktop.portal.Desktop"
    static let objectPath = "/org/freedesktop/portal/desktop"
    static let screenCast = "org.freedesktop.portal.ScreenCast"
    static let request = "org.freedesktop.portal.Request"
    static let session = "org.freedesktop.portal.Session"
    static let properties = "org.freedesktop.DBus.Properties"
    static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"

    /// Where the portal puts the object for a request (or session) made with
    /// `token` by `sender`: the unique name without ':' and with '.' as '_'.
    static func handlePath(kind: String, sender: String, token: String) -> String {
        let caller = String(sender.drop { $0 == ":" }).replacingOccurrences(of: ".", with: "_")
        return "\(objectPath)/\(kind)/\(caller)/\(token)"
    }

    static func requestPath(sender: String, token: String) -> String {
        handlePath(kind: "request", sender: sender, token: token)
    }

    static func sessionPath(sender: String, token: String) -> String {
        handlePath(kind: "session", sender: sender, token: token)
    }
}
