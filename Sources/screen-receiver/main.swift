import Events
import Foundation
import Receiving
import RTP
import SRTP
import Transport

// screen-receiver --listen HOST:PORT (--srtp-key-file KEY | --insecure-rtp) [--json] [--duration S]
//   [--wedge keyframe|decoder|sticky|forever] [--wedge-after S] [--source-width W] [--codec h264|vp8] [--twcc-id N|off]
//   [--quality demo|motion|still --source-width W --source-height H [--source-fps F] [--seed S]]
// With --quality each decoded frame whose stamp reads is compared with the regenerated synthetic
// frame; the figures carry running means: ssim, psnr, ssimText, psnrText, qualityFrames.
// Lines on stdin come from whoever stands in for the call client: `shareAgain [SSRC]`, `transceiver SSRC`, `pli`, `stop`.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("screen-receiver: \(message)\n".utf8))
    exit(2)
}

func readOptions() throws(ArgumentParser.Failure) -> (ScreenReceiver.Options, json: Bool, level: EventOutput.Level) {
    var a = try ArgumentParser(Array(CommandLine.arguments.dropFirst()), flagNames: ["json", "insecure-rtp"])
    if let extra = a.positional.first { throw .init("unexpected argument \"\(extra)\"") }
    guard let listenText = a.string("listen"), let listen = try? SocketAddress(parsing: listenText) else {
        throw .init("--listen HOST:PORT is required, such as 127.0.0.1:5004")
    }
    let profile: SRTPProfile = a.string("srtp-profile") == "gcm" ? .aeadAes128Gcm : .aes128CmHmacSha1_80
    var key: SRTPKey?
    if let path = a.string("srtp-key-file") {
        do { key = try SRTPKey(contentsOfFile: path, profile: profile) } catch { throw .init("--srtp-key-file \(path): \(error)") }
    } else if !a.flag("insecure-rtp") {
        throw .init("--srtp-key-file KEY is required (or --insecure-rtp)")
    }
    var options = ScreenReceiver.Options(listen: listen, key: key)
    options.duration = try a.double("duration")
    if let w = a.string("wedge") {
        guard let mode = WedgeMode(rawValue: w) else { throw .init("--wedge must be keyframe, decoder, sticky or forever") }
        options.wedge = mode
    }
    options.wedgeAfter = try a.double("wedge-after") ?? 5
    options.sourceWidth = try a.int("source-width", in: 16...8192)
    let sourceHeight = try a.int("source-height", in: 16...8192)
    let sourceFPS = try a.int("source-fps", in: 1...30) ?? 30
    let seed = try a.int("seed", in: 0...Int.max) ?? 1
    if let name = a.string("quality") {
        guard let width = options.sourceWidth, let height = sourceHeight else {
            throw .init("--quality needs --source-width W and --source-height H")
        }
        guard let source = QualityMeter.Source(scenarioName: name, width: width, height: height, fps: sourceFPS, seed: UInt64(seed)) else {
            throw .init("--quality must be demo, motion or still")
        }
        options.quality = source
    }
    if let c = a.string("codec") {
        guard let codec = ReceivedCodec(rawValue: c) else { throw .init("--codec must be h264 or vp8, not \"\(c)\"") }
        options.codec = codec
    }
    if let t = a.string("twcc-id") {
        if t == "off" {
            options.transportWide = nil
        } else {
            guard let id = UInt8(t), let sequence = TransportSequenceNumber(extensionID: id) else {
                throw .init("--twcc-id must be an extension id from 1 to 14, or off, not \"\(t)\"")
            }
            options.transportWide = sequence
        }
    }
    let level = a.string("log-level").flatMap(EventOutput.Level.init(name:)) ?? .info
    let json = a.flag("json")
    _ = a.flag("insecure-rtp")
    try a.rejectUnknown()
    return (options, json, level)
}

let parsed: (options: ScreenReceiver.Options, json: Bool, level: EventOutput.Level)
do { parsed = try readOptions() } catch { fail(error.description) }
let options = parsed.options
let output = EventOutput(format: parsed.json ? .json : .human, level: parsed.level)

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
