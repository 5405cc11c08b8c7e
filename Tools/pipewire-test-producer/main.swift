// A PipeWire screen of our own for tests and demos: sends PipeWireTestPattern
// frames from an output node and prints the node id on stdout.
//
//   pipewire-test-producer [--width 640] [--height 360] [--format BGRx|BGRA|RGBx|RGBA]
//       [--rate 30] [--cursor X,Y] [--resize FRAME:WxH] [--hold BUFFERS:EVERY:FOR]
//       [--remote SOCKET-PATH]
import Capture
import Foundation
import CapturePipeWire

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pipewire-test-producer: \(message)\n".utf8))
    exit(2)
}

func number(_ text: some StringProtocol) -> Int {
    guard let value = Int(text) else { fail("\(text) is not a number") }
    return value
}

func numbers(_ text: String, separators: String) -> [Int] {
    text.split(whereSeparator: { separators.contains($0) }).map { number($0) }
}

var options = PipeWireTestProducer.Options(width: 640, height: 360)
var remote: String?
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fail("\(flag) needs a value") }
    switch flag {
    case "--width": options.width = number(value)
    case "--height": options.height = number(value)
    case "--rate": options.rate = number(value)
    case "--format":
        guard let format = PipeWirePixelFormat(rawValue: value) else { fail("unknown format \(value)") }
        options.format = format
    case "--cursor":
        let xy = numbers(value, separators: ",")
        guard xy.count == 2 else { fail("--cursor takes X,Y") }
        options.cursor = (xy[0], xy[1])
    case "--resize":
        let parts = numbers(value, separators: ":x")
        guard parts.count == 3 else { fail("--resize takes FRAME:WxH") }
        options.resize = (UInt64(parts[0]), parts[1], parts[2])
    case "--hold":
        let parts = numbers(value, separators: ":")
        guard parts.count == 3 else { fail("--hold takes BUFFERS:EVERY:FOR") }
        options.hold = (parts[0], UInt64(parts[1]), UInt64(parts[2]))
    case "--remote": remote = value
    default: fail("unknown option \(flag)")
    }
}

do {
    let fd = try remote.map { path throws(CaptureError) in try PipeWireRemote.connectSocket(path: path) }
    let producer = try PipeWireTestProducer(options, remoteFD: fd)
    while producer.nodeID == nil { Thread.sleep(forTimeInterval: 0.01) }
    FileHandle.standardOutput.write(Data("\(producer.nodeID!)\n".utf8))
    while true { Thread.sleep(forTimeInterval: 3600) }
} catch {
    fail(error.description)
}
