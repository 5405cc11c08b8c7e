import Foundation
import Testing
import Capture
import CapturePipeWire
import TestSupport

struct PortalRestoreTokenFileTests {
    @Test func defaultPath_followsXDGStateHome() {
        #expect(PortalRestoreTokenFile.defaultPath(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"])
            == "/s/screenshare/restore-token")
    }

    @Test func defaultPath_withoutXDGStateHome_isUnderLocalState() {
        #expect(PortalRestoreTokenFile.defaultPath(environment: ["XDG_STATE_HOME": "", "HOME": "/h"])
            == "/h/.local/state/screenshare/restore-token")
    }

    @Test func missingFile_meansNoToken() {
        #expect(PortalRestoreTokenFile(path: "/nonexistent/restore-token").load() == nil)
    }

    @Test func saved_isThisUsersAlone_replacesTheOldToken_andLeavesNothingBeside() throws {
        let tokens = TestTokenFile()
        defer { tokens.remove() }
        try tokens.file.save("first")
        try tokens.file.save("second")
        #expect(tokens.file.load() == "second")
        let attributes = try FileManager.default.attributesOfItem(atPath: tokens.file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = URL(fileURLWithPath: tokens.file.path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["restore-token"])
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: folder)
        #expect((folderAttributes[.posixPermissions] as? Int) == 0o700)
    }

    @Test func unwritableFolder_isATemporaryErrorThatSaysWhere() {
        let error = #expect(throws: CaptureError.self) { try PortalRestoreTokenFile(path: "/proc/screenshare/restore-token").save("t") }
        #expect(error?.kind == .temporary)
        #expect(error?.message.hasPrefix("Could not save the screen-share restore token to /proc/screenshare/restore-token") == true)
    }
}
