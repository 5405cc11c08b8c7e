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
}
