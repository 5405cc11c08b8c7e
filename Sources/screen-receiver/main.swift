import Events
import Foundation
import Receiving
import RTP
import SRTP
import Transport

// With --quality each decoded frame whose stamp reads is compared with the regenerated synthetic
// frame; the figures carry running means: ssim, psnr, ssimText, psnrText, qualityFrames.
// Lines on stdin come from whoever stands in for the call client: `shareAgain [SSRC]`, `transceiver SSRC`, `pli`, `stop`.

let help = CommandHelp(
    usage: "screen-receiver --listen HOST:PORT (--srtp-key-file KEY | --insecure-rtp) [options]",
    summary: "Receives, decodes and answers one screen share as a call's receiver would, printing its figures once a second.",
    options: [
        .init("listen", "HOST:PORT", "where to receive RTP and RTCP; port 0 picks one (the listening event says which)", default: "required"),
        .init("srtp-key-file", "KEY", "a file holding base64 of the SRTP master key and salt", default: "required, unless --insecure-rtp"),
        .init("srtp-profile", "aes|gcm", "AES_CM_128_HMAC_SHA1_80 or AEAD_AES_128_GCM", default: "aes"),
        .init("insecure-rtp", nil, "take plain RTP", default: "off"),
        .init("codec", "h264|vp8", "what the stream carries", default: "h264"),
        .init("twcc-id", "N|off", "the transport-wide sequence number's extension id: transport-wide feedback for packets that carry it, "
              + "and no REMB while they do", default: "5"),
        .init("rtx-pt", "N", "RTX's payload type (RFC 4588): packets of it carry a lost packet again", default: "none"),
        .init("duration", "SECONDS", "stop after this long", default: "until SIGINT, SIGTERM or stop on stdin"),
        .init("json", nil, "figures and events as JSON lines on stdout", default: "off: readable lines on stderr"),
        .init("log-level", "debug|info|warning|error", "how much is logged", default: "info"),
        .init("wedge", "keyframe|decoder|sticky|forever", "for the recovery gates: make the decoder swallow frames", default: "none"),
        .init("wedge-after", "SECONDS", "when the wedge begins", default: "5"),
        .init("source-width", "W", "the synthetic screen's width, to read frame stamps from a scaled picture", default: "none"),
        .init("source-height", "H", "with --quality: the synthetic screen's height", default: "none"),
        .init("source-fps", "F", "with --quality: the synthetic screen's frame rate", default: "30"),
        .init("seed", "S", "with --quality: the synthetic screen's seed", default: "1"),
        .init("snapshot", "FILE.png", "on stopping, write the last picture decoded to this PNG file", default: "none"),
        .init("quality", "demo|motion|still", "compare each decoded frame with the synthetic frame it was (SSIM, PSNR)", default: "off"),
    ])

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("screen-receiver: \(message)\n".utf8))
    exit(2)
}

func readOptions() throws(ArgumentParser.Failure) -> (ScreenReceiver.Options, json: Bool, level: EventOutput.Level) {
    var a = try ArgumentParser(Array(CommandLine.arguments.dropFirst()), help: help)
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
    options.duration = try a.seconds("duration")
    options.snapshotPath = a.string("snapshot")
    if let w = a.string("wedge") {
        guard let mode = WedgeMode(rawValue: w) else { throw .init("--wedge must be keyframe, decoder, sticky or forever") }
        options.wedge = mode
    }
    options.wedgeAfter = try a.seconds("wedge-after") ?? 5
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
    if let p = a.string("rtx-pt") {
        guard let pt = UInt8(p), pt < 128 else { throw .init("--rtx-pt must be a payload type from 0 to 127, not \"\(p)\"") }
        options.retransmissionPayloadType = pt
    }
    let level = a.string("log-level").flatMap(EventOutput.Level.init(name:)) ?? .info
    let json = a.flag("json")
    _ = a.flag("insecure-rtp")
    try a.rejectUnknown()
    return (options, json, level)
}

let parsed: (options: ScreenReceiver.Options, json: Bool, level: EventOutput.Level)
do { parsed = try readOptions() } catch where error.isHelp {
    print(error.description)
    exit(0)
} catch { fail(error.description) }
let options = parsed.options
let output = EventOutput(format: parsed.json ? .json : .human, level: parsed.level)

let receiver: ScreenReceiver
do { receiver = try ScreenReceiver(options: options, output: output) } catch { fail("\(error)") }
output.event("listening", [("address", .string(receiver.localAddress.description))],
             human: "Listening on \(receiver.localAddress)")
HeapSettings.apply()
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
