import Events
import Capture
import Foundation
import Synthetic

/// `screenshare frames …`: the synthetic screen as raw BGRx (ffmpeg's `bgr0`)
/// frames on stdout, width × height × 4 bytes each, as fast as the reader
/// takes them — so an outside encoder such as ffmpeg can be fed the very
/// screen `share --source synthetic` captures (pace it with ffmpeg's `-re`).
public struct RawFramesCommand: Sendable {
    public var size = (width: 1920, height: 1080)
    public var fps = 30
    public var scenario = SyntheticScreen.Scenario.demo
    public var count: UInt64?
    public var seed: UInt64 = 1

    public static let help = CommandHelp(
        usage: "screenshare frames [options]",
        summary: "Writes raw bgr0 frames of the synthetic screen to stdout, for an outside encoder such as ffmpeg.",
        options: [
            .init("size", "WxH", "the generated screen's size", default: "1920x1080"),
            .init("fps", "N", "the rate its motion is drawn for, 1 to 240", default: "30"),
            .init("scenario", "demo|motion|still", "what the generated screen does", default: "demo"),
            .init("count", "N", "stop after this many frames", default: "until the reader stops"),
            .init("seed", "S", "the seed of its pseudo-random motion", default: "1"),
        ])

    public static func parse(_ arguments: [String]) throws(ArgumentParser.Failure) -> RawFramesCommand {
        var a = try ArgumentParser(arguments, help: help)
        var c = RawFramesCommand()
        c.size = try a.size("size") ?? c.size
        c.fps = try a.int("fps", in: 1...240) ?? c.fps
        if let name = a.string("scenario") {
            guard let scenario = SyntheticScreen.Scenario(rawValue: name) else {
                throw .init("--scenario must be demo, motion or still, not \"\(name)\"")
            }
            c.scenario = scenario
        }
        if let text = a.string("count") {
            guard let n = UInt64(text) else { throw .init("--count must be a whole number of frames, not \"\(text)\"") }
            c.count = n
        }
        if let text = a.string("seed") {
            guard let s = UInt64(text) else { throw .init("--seed must be a whole number, not \"\(text)\"") }
            c.seed = s
        }
        try a.rejectUnknown()
        if let extra = a.positional.first { throw .init("unexpected argument \"\(extra)\"") }
        return c
    }

    /// Writes frames until `count` is reached or the reader goes away; the exit status.
    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)  // a reader that closes the pipe ends the run, not the process
        let screen = SyntheticScreen(width: size.width, height: size.height, fps: fps, scenario: scenario, seed: seed)
        let stride = size.width * 4
        let frameBytes = stride * size.height
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: frameBytes, alignment: 64)
        defer { buffer.deallocate() }
        var frame: UInt64 = 0
        while count.map({ frame < $0 }) ?? true {
            screen.render(frame: frame, into: buffer, stride: stride)
            guard RawFramesCommand.writeAll(buffer, frameBytes) else {
                return errno == EPIPE ? 0 : 1
            }
            frame += 1
        }
        return 0
    }

    /// Writes every byte to stdout, retrying short writes and interruptions.
    private static func writeAll(_ bytes: UnsafeRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = write(STDOUT_FILENO, bytes + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += n
        }
        return true
    }
}
