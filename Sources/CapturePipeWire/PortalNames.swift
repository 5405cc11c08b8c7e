/// The bus names, paths and interfaces of xdg-desktop-portal, shared by the
/// client and the stand-in so the two cannot drift apart.
package enum PortalNames {
    package static let busName = "org.freedesktop.portal.Desktop"
    static let objectPath = "/org/freedesktop/portal/desktop"
    package static let screenCast = "org.freedesktop.portal.ScreenCast"
    package static let request = "org.freedesktop.portal.Request"
    package static let session = "org.freedesktop.portal.Session"
    package static let properties = "org.freedesktop.DBus.Properties"
    package static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    package static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"

    /// Where the portal puts the object for a request (or session) made with
    /// `token` by `sender`: the unique name without ':' and with '.' as '_'.
    static func handlePath(kind: String, sender: String, token: String) -> String {
        let caller = String(sender.drop { $0 == ":" }).replacingOccurrences(of: ".", with: "_")
        return "\(objectPath)/\(kind)/\(caller)/\(token)"
    }

    package static func requestPath(sender: String, token: String) -> String {
        handlePath(kind: "request", sender: sender, token: token)
    }

    package static func sessionPath(sender: String, token: String) -> String {
        handlePath(kind: "session", sender: sender, token: token)
    }
}
