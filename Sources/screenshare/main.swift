import Foundation
import Events
import ScreenShare

let usage = """
    usage: screenshare share --to HOST:PORT (--srtp-key-file KEY | --insecure-rtp) [options]
           screenshare sources [--display :N]
           screenshare frames --size WxH [--fps N] [--scenario demo|motion|still] [--count N]
           screenshare serve --control stdio|unix:PATH [--allow-unencrypted] [--log-level LEVEL]
    see README.md for every option
    """

SignalMask.unblockControlSignals()
var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
arguments.removeFirst()

switch command {
case "share":
    do {
        let options = try ShareOptions.parse(arguments)
        exit(ShareRunner(options: options).run())
    } catch {
        FileHandle.standardError.write(Data("screenshare share: \(error)\n".utf8))
        exit(2)
    }
case "sources":
    let display = arguments.firstIndex(of: "--display").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    print(SourceInventory.gather(display: display).text)
case "frames":
    do {
        exit(try RawFramesCommand.parse(arguments).run())
    } catch {
        FileHandle.standardError.write(Data("screenshare frames: \(error)\n\(RawFramesCommand.usage)\n".utf8))
        exit(2)
    }
case "serve":
    do {
        let options = try ServeOptions.parse(arguments)
        exit(ServeRunner(options: options).run())
    } catch {
        FileHandle.standardError.write(Data("screenshare serve: \(error)\n".utf8))
        exit(2)
    }
default:
    FileHandle.standardError.write(Data("screenshare: unknown command \"\(command)\"\n\(usage)\n".utf8))
    exit(2)
}
