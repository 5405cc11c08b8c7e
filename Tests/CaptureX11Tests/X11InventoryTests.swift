import Testing
@testable import CaptureX11
import Capture

extension X11Tests {
    @Suite struct Inventory {
        @Test func inventory_listsMonitorsAndMappedWindowsWithTitles() async throws {
            let server = try await XvfbServer()
            let client = try server.client()
            let window = client.createWindow(x: 20, y: 30, width: 120, height: 90, colour: Colour.orange, title: "Notes")
            let hidden = client.createWindow(x: 0, y: 0, width: 10, height: 10, colour: Colour.green, title: "Gone")
            client.destroy(hidden)

            let inventory = try X11Inventory.list(display: server.display)
            #expect(inventory.monitors == [X11Monitor(name: "screen", x: 0, y: 0, width: 640, height: 480)])
            #expect(inventory.windows == [X11WindowInfo(id: window, title: "Notes", x: 20, y: 30, width: 120, height: 90)])

            let text = X11Inventory.format(monitors: inventory.monitors, windows: inventory.windows)
            #expect(text == """
                Monitors:
                  screen 640×480 at 0,0
                Windows:
                  \(X11Target.hex(window)) "Notes" 120×90 at 20,30

                """)
        }
    }
}
