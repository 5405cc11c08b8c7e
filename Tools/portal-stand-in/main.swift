// A ScreenCast portal of our own on the session bus it is given
// (DBUS_SESSION_BUS_ADDRESS), for tests and machines with no desktop.
// Every Start "chooses" NODE; every OpenPipeWireRemote connects to SOCKET.
// Prints one line per event on stdout (see PortalStandIn).
//
//   portal-stand-in --node N --pipewire-socket PATH [--cancel | --never-answer] [--cursor-modes BITS]
import Capture
import Foundation
import CapturePipeWire
import TestSupport

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("portal-stand-in: \(message)\n".utf8))
    exit(2)
}

func number(_ text: String, for flag: String) -> UInt32 {
    guard let value = UInt32(text) else { fail("\(flag) takes a number, not \(text)") }
    return value
}

var node: UInt32?
var socket: String?
var start = PortalStandIn.StartAnswer.choose
var cursorModes: PortalCursorModes = [.hidden, .embedded, .metadata]
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    if flag == "--cancel" || flag == "--never-answer" {
        start = flag == "--cancel" ? .cancel : .never
        continue
    }
    guard let value = arguments.popFirst() else { fail("\(flag) needs a value") }
    switch flag {
    case "--node": node = number(value, for: flag)
    case "--pipewire-socket": socket = value
    case "--cursor-modes": cursorModes = PortalCursorModes(rawValue: number(value, for: flag))
    default: fail("unknown option \(flag)")
    }
}
guard let node, let socket else { fail("--node and --pipewire-socket are required") }

let options = PortalStandIn.Options(node: node, pipeWireSocket: socket, start: start, cursorModes: cursorModes) { line in
    FileHandle.standardOutput.write(Data("\(line)\n".utf8))
}
do {
    let standIn = try PortalStandIn(options)
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    standIn.run()
} catch {
    fail(error.description)
}
