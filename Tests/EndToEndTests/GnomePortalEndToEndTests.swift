import Foundation
import Testing

/// The `portal` source against the real xdg-desktop-portal and its GNOME
/// backend, on a headless mutter whose virtual monitor shows a ticking clock:
/// a share decoded at the monitor's size, a second share that the saved
/// restore token lets start with no Share dialog, and the desktop ending it.
@Suite(.serialized) struct GnomePortalEndToEndTests {
    /// A restored share asks nobody: the portal, mutter and PipeWire answer within a second.
    static let restoredStartLimit: TimeInterval = 5
    /// The desktop's Closed reaches the share within a tenth of a second; the rest is stopping cleanly.
    static let endLimit: TimeInterval = 5

    private func share(_ desktop: TestGnomeDesktop, key: String, tokenFile: String, to address: String) throws -> ManagedProcess {
        // detail holds the size (frames fall instead) however loaded the machine is: the size is what is checked.
        try ManagedProcess("screenshare", ["share", "--source", "portal", "--policy", "detail", "--to", address, "--srtp-key-file", key,
                                           "--restore-token-file", tokenFile, "--json", "--log-level", "info"],
                           environment: desktop.environment)
    }

    private func framesSent(_ sender: ManagedProcess) -> Int {
        sender.events("status").last?["framesSent"] as? Int ?? 0
    }

    @Test(.enabled(if: TestGnomeDesktop.installed, "needs mutter, xdg-desktop-portal, xdg-desktop-portal-gnome and foot (Tools/setup)"))
    func realPortal_sharesTheMonitor_restoresWithoutDialog_andEndsWhenTheDesktopStops() throws {
        let desktop = try TestGnomeDesktop()
        defer { desktop.stop() }
        let key = try makeKeyFile()
        let tokenFile = desktop.directory + "/restore-token"
        // The desktop's seeded token stands for the person's first "Share", which needs a click.
        try (desktop.seededToken + "\n").write(toFile: tokenFile, atomically: false, encoding: .utf8)
        chmod(tokenFile, 0o600)

        // First share: the compositor's moving screen, decoded at the monitor's size.
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: 40)
        let launched = Date()
        let first = try share(desktop, key: key.path, tokenFile: tokenFile, to: address)
        #expect(receiver.waitFor(timeout: 15) { ($0.events("figures").last?["framesDecoded"] as? Int ?? 0) > 0 })
        let firstFrame = Date().timeIntervalSince(launched)
        #expect(first.waitFor(timeout: 10) { framesSent($0) > 0 })
        let sentBefore = framesSent(first)
        #expect(first.waitFor(timeout: 10) { framesSent($0) >= sentBefore + 30 })
        #expect(receiver.waitFor(timeout: 15) { ($0.events("figures").last?["framesDecoded"] as? Int ?? 0) >= 30 })
        first.send("stop")
        #expect(first.waitForExit(timeout: 10) == 0)
        #expect(first.events("share").last?["reason"] as? String == "the share was stopped")
        receiver.send("stop")
        _ = receiver.waitForExit(timeout: 5)
        let figures = try #require(receiver.events("figures").last)
        let decoded = figures["framesDecoded"] as? Int ?? 0
        #expect(figures["width"] as? Int == desktop.size.width && figures["height"] as? Int == desktop.size.height)
        #expect(decoded >= 30)
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let attributes = try FileManager.default.attributesOfItem(atPath: tokenFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        // Second share with the token the portal handed back: no dialog, started at once.
        let (second, secondAddress) = try ManagedProcess.receiver(key: key.path, seconds: 40)
        let relaunched = Date()
        let again = try share(desktop, key: key.path, tokenFile: tokenFile, to: secondAddress)
        #expect(again.waitFor(timeout: Self.restoredStartLimit) { $0.events("share").first?["state"] as? String == "on" })
        let restoredStart = Date().timeIntervalSince(relaunched)
        #expect(desktop.dialogsShown == 0)
        #expect(again.events("log").contains { ($0["message"] as? String)?.hasPrefix("The desktop restored the last choice") == true })
        #expect(second.waitFor(timeout: 15) { ($0.events("figures").last?["framesDecoded"] as? Int ?? 0) > 10 })

        // The desktop ends the screen cast: the share ends, with the reason, and the sender exits.
        let stopped = Date()
        try desktop.stopScreencasts()
        #expect(again.waitForExit(timeout: Self.endLimit) == 0)
        let ended = Date().timeIntervalSince(stopped)
        let off = again.events("share").last
        #expect(off?["state"] as? String == "off")
        #expect(off?["reason"] as? String == "The desktop stopped the screen share")
        second.send("stop")
        _ = second.waitForExit(timeout: 5)
        #expect(try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == token)
        print(String(format: "GNOME portal end to end: %d frames decoded at %d×%d, first frame after %.2f s; "
                     + "restored share started in %.2f s with %d dialogs; the desktop's stop ended it in %.2f s",
                     decoded, figures["width"] as? Int ?? 0, figures["height"] as? Int ?? 0, firstFrame, restoredStart,
                     desktop.dialogsShown, ended))
    }
}
