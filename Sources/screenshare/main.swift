import Foundation
import Events
import ScreenShare

let usage = """
    usage: screenshare share --to HOST:PORT (--srtp-key-file KEY | --insecure-rtp) [options]
           screenshare serve --control stdio|unix:PATH [--allow-unencrypted] [--log-level LEVEL]
           screenshare sources [--display :N]
           screenshare frames [--size WxH] [--fps N] [--scenario demo|motion|still] [--count N] [--seed S]
    screenshare COMMAND --help lists a command's options and their defaults
    """

/// Runs a command's parse-and-run; `--help` prints its options on stdout and succeeds, a bad option says why and fails.
func run(_ name: String, _ body: () throws(ArgumentParser.Failure) -> Int32) -> Never {
    do {
        exit(try body())
    } catch where error.isHelp {
        print(error.description)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("screenshare \(name): \(error)\n".utf8))
        exit(2)
    }
}

HeapSettings.apply()
SignalMask.unblockControlSignals()
var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
arguments.removeFirst()

switch command {
case "share":
    run(command) { () throws(ArgumentParser.Failure) in ShareRunner(options: try ShareOptions.parse(arguments)).run() }
case "serve":
    run(command) { () throws(ArgumentParser.Failure) in ServeRunner(options: try ServeOptions.parse(arguments)).run() }
case "sources":
    run(command) { () throws(ArgumentParser.Failure) in
        var a = try ArgumentParser(arguments, help: SourceInventory.help)
        let display = a.string("display")
        try a.rejectUnknown()
        if let extra = a.positional.first { throw .init("unexpected argument \"\(extra)\"") }
        print(SourceInventory.gather(display: display).text)
        return 0
    }
case "frames":
    run(command) { () throws(ArgumentParser.Failure) in try RawFramesCommand.parse(arguments).run() }
case "--help", "-h", "help":
    print(usage)
default:
    FileHandle.standardError.write(Data("screenshare: unknown command \"\(command)\"\n\(usage)\n".utf8))
    exit(2)
}
