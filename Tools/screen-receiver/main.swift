import Events
import Foundation
import Receiving
import RTP

// screen-receiver --listen HOST:PORT (--srtp-key-file KEY | --insecure-rtp) [--json] [--duration S]
//   [--wedge keyframe|decoder|sticky|forever] [--wedge-after S] [--source-width W] [--codec h264|vp8]
//   [--quality demo|motion|still --source-width W --source-height H [--source-fps F] [--seed S]]
// With --quality each decoded frame whose stamp reads is compared with the regenerated synthetic
// frame; the figures carry running means: ssim, psnr, ssimText, psnrText, qualityFrames.
// Lines on stdin come from whoever stands in for the call client: `shareAgain [SSRC]`, `transceiver SSRC`, `pli`, `stop`.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("screen-receiver: \(message)\n".utf8))
    exit(2)
}

var values: [String: String] = [:]
var flags: Set<String> = []
let flagNames: Set<String> = ["json", "insecure-rtp"]
var rest = Array(CommandLine.arguments.dropFirst())
while let argument = rest.first {
    rest.removeFirst()
    guard argument.hasPrefix("--") else { fail("unexpected argument \"\(argument)\"") }
    let name = String(argument.dropFirst(2))
    if flagNames.contains(name) {
        flags.insert(name)
    } else {
        guard let value = rest.first else { fail("--\(name) needs a value") }
        rest.removeFirst()
        values[name] = value
    }
}
let known: Set<String> = ["listen", "srtp-key-file", "srtp-profile", "duration", "wedge", "wedge-after", "source-width", "log-level",
                          "quality", "source-height", "source-fps", "seed", "codec"]
if let unknown = Set(values.keys).subtracting(known).first { fail("unknown option --\(unknown)") }

guard let listenText = values["listen"], let listen = try? SocketAddress(parsing: listenText) else {
    fail("--listen HOST:PORT is required, such as 127.0.0.1:5004")
}
let profile: SRTPProfile = values["srtp-profile"] == "gcm" ? .aeadAes128Gcm : .aes128CmHmacSha1_80
var key: SRTPKey?
if let path = values["srtp-key-file"] {
    do { key = try SRTPKey(contentsOfFile: path, profile: profile) } catch { fail("--srtp-key-file \(path): \(error)") }
} else if !flags.contains("insecure-rtp") {
    fail("--srtp-key-file KEY is required (or --insecure-rtp)")
}
var options = ScreenReceiver.Options(listen: listen, key: key)
options.duration = values["duration"].flatMap(Double.init)
if let w = values["wedge"] {
    guard let mode = WedgeMode(rawValue: w) else { fail("--wedge must be keyframe, decoder, sticky or forever") }
    options.wedge = mode
}
options.wedgeAfter = values["wedge-after"].flatMap(Double.init) ?? 5
options.sourceWidth = values["source-width"].flatMap(Int.init)
if let name = values["quality"] {
    guard let width = options.sourceWidth, let height = values["source-height"].flatMap(Int.init), width > 0, height > 0 else {
        fail("--quality needs --source-width W and --source-height H")
    }
    let fps = values["source-fps"].flatMap(Int.init) ?? 30
    guard let seed = UInt64(values["seed"] ?? "1") else { fail("--seed must be a whole number") }
    guard let source = QualityMeter.Source(scenarioName: name, width: width, height: height, fps: fps, seed: seed) else {
        fail("--quality must be demo, motion or still")
    }
    options.quality = source
}
if let c = values["codec"] {
    guard let codec = ReceivedCodec(rawValue: c) else { fail("--codec must be h264 or vp8, not \"\(c)\"") }
    options.codec = codec
}
let level = values["log-level"].flatMap(EventOutput.Level.init(name:)) ?? .info
let output = EventOutput(format: flags.contains("json") ? .json : .human, level: level)

let receiver: ScreenReceiver
do { receiver = try ScreenReceiver(options: options, output: output) } catch { fail("\(error)") }
output.event("listening", [("address", .string(receiver.localAddress.description))],
             human: "Listening on \(receiver.localAddress)")
SignalMask.unblockControlSignals()
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let signals = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignal in
    let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
    s.setEventHandler { receiver.stop() }
    s.resume()
    return s
}
Thread.detachNewThread {
    while let line = readLine() { receiver.command(line.trimmingCharacters(in: .whitespaces)) }
}
receiver.run()
withExtendedLifetime(signals) {}
