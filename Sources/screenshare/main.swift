import Foundation
import ScreenShare

let usage = """
    usage: screenshare share --to HOST:PORT (--srtp-key-file KEY | --insecure-rtp) [options]
           screenshare serve --control stdio|unix:PATH [--allow-unencrypted] [--log-level LEVEL]
    see README.md for every option
    """

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
