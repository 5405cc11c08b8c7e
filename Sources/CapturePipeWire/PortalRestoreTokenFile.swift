import Foundation
import Capture
import Media

/// Where the portal's restore token is kept between shares. With it the
/// portal may skip the picker and share the same screen again; each Start
/// hands out a new token, so the file is rewritten after every share.
public struct PortalRestoreTokenFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// `$XDG_STATE_HOME/screenshare/restore-token`, with `XDG_STATE_HOME`
    /// defaulting to `~/.local/state` as the XDG base directory spec says.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return stateHome + "/screenshare/restore-token"
    }

    /// The saved token, or nil when there is none (a missing file is the first share).
    public func load() -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// Saves `token`, readable by this user only: it grants a screen share without asking. The file is
    /// 0600 from its first byte and replaced whole (`PrivateFile`), so the token is never readable by
    /// others, not even for a moment, and a reader never sees half of it.
    public func save(_ token: String) throws(CaptureError) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw failure(error.localizedDescription)
        }
        do {
            try PrivateFile.write(token + "\n", to: path)
        } catch {
            throw failure(error.description)
        }
    }

    private func failure(_ reason: String) -> CaptureError {
        CaptureError(.temporary, "Could not save the screen-share restore token to \(path): \(reason). The next share will ask again which screen to share")
    }
}
