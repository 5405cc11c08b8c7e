import Events
import Encoding
import Foundation
import RTP
import SRTP
import Transport
import Sending

/// `screenshare share …`: one screen to one receiver.
public struct ShareOptions: Sendable {
    public var source = "synthetic"
    public var destination: SocketAddress
    public var rtcpDestination: SocketAddress?
    public var bind: SocketAddress?
    public var key: SRTPKey?
    public var policy = SendPolicy.balanced
    public var bitrateMax = 4_000_000
    public var size = (width: 1920, height: 1080)
    public var fps = 30
    public var ssrc: UInt32?
    public var sdpPath: String?
    /// The transport-wide sequence number's extension id: the receiver then
    /// sends transport-wide feedback and the estimate is made from it.
    public var transportWideID: UInt8?
    public var duration: Double?
    public var json = false
    public var acceptPlainRTCP = false
    public var level: H264Level?
    public var profileLevelID = ProfileLevelID.chromiumDefault
    public var scenario = "demo"
    public var logLevel = EventOutput.Level.info
    var selection = SourceFactory.Selection()
    public var encoderFault: EncoderFault?
    public var captureStopsAfter: Duration?

    static let flags: Set<String> = ["json", "insecure-rtp", "accept-plain-rtcp", "pipewire-link", "portal-window"]

    public static func parse(_ arguments: [String]) throws(ArgumentParser.Failure) -> ShareOptions {
        var a = try ArgumentParser(arguments, flagNames: flags)
        guard let to = a.string("to") else { throw .init("--to HOST:PORT is required: where the receiver listens") }
        var o = ShareOptions(destination: try address(to, "to"))
        o.source = a.string("source") ?? "synthetic"
        if let r = a.string("rtcp-to") { o.rtcpDestination = try address(r, "rtcp-to") }
        if let b = a.string("bind") { o.bind = try address(b, "bind") }
        if let p = a.string("policy") {
            guard let policy = SendPolicy.parse(p) else { throw .init("--policy must be balanced, detail or motion, not \"\(p)\"") }
            o.policy = policy
        }
        o.bitrateMax = try a.bitrate("bitrate-max") ?? o.bitrateMax
        o.size = try a.size("size") ?? o.size
        o.fps = try a.int("fps", in: 1...30) ?? o.fps
        if let s = a.string("ssrc") {
            guard let v = UInt32(s), v != 0 else { throw .init("--ssrc must be a number from 1 to 4294967295, not \"\(s)\"") }
            o.ssrc = v
        }
        o.sdpPath = a.string("sdp")
        o.transportWideID = try transportWide(a.string("twcc-id"), writingSDP: o.sdpPath != nil)
        o.duration = try a.double("duration")
        o.json = a.flag("json")
        o.acceptPlainRTCP = a.flag("accept-plain-rtcp")
        if let l = a.string("h264-level") {
            guard let level = H264Level.parse(l) else { throw .init("--h264-level must be a level such as 3.1 or 4.2, not \"\(l)\"") }
            o.level = level
        }
        if let p = a.string("profile-level-id") {
            guard let id = ProfileLevelID(hex: p) else { throw .init("--profile-level-id must be six hex digits such as 42e01f, not \"\(p)\"") }
            o.profileLevelID = id
        }
        o.scenario = a.string("scenario") ?? o.scenario
        o.selection.monitor = a.string("monitor")
        if let w = a.string("window") {
            guard let id = UInt32(w.hasPrefix("0x") ? String(w.dropFirst(2)) : w, radix: w.hasPrefix("0x") ? 16 : 10) else {
                throw .init("--window must be a window id such as 0x400001 (see screenshare sources), not \"\(w)\"")
            }
            o.selection.window = id
        }
        if let r = a.string("region") { o.selection.region = try region(r) }
        o.selection.linkPipeWire = a.flag("pipewire-link")
        o.selection.portalWindow = a.flag("portal-window")
        o.selection.restoreTokenFile = a.string("restore-token-file")
        if let l = a.string("log-level") {
            guard let level = EventOutput.Level(name: l) else { throw .init("--log-level must be debug, info, warning or error") }
            o.logLevel = level
        }
        if let f = a.string("fault") {
            if f.hasPrefix("capture-stops:"), let seconds = Double(f.dropFirst("capture-stops:".count)) {
                o.captureStopsAfter = .milliseconds(Int64(seconds * 1000))
            } else if f.hasPrefix("encoder-"), let fault = EncoderFault.parse(String(f.dropFirst("encoder-".count))) {
                o.encoderFault = fault
            } else {
                throw .init("--fault must be encoder-stops:S, encoder-hangs:S or capture-stops:S, not \"\(f)\"")
            }
        }
        let insecure = a.flag("insecure-rtp")
        let profileName = a.string("srtp-profile") ?? "aes"
        let profile: SRTPProfile
        switch profileName {
        case "aes", "AES_CM_128_HMAC_SHA1_80": profile = .aes128CmHmacSha1_80
        case "gcm", "AEAD_AES_128_GCM": profile = .aeadAes128Gcm
        default: throw .init("--srtp-profile must be aes or gcm, not \"\(profileName)\"")
        }
        let keyFile = a.string("srtp-key-file")
        try a.rejectUnknown()
        switch (keyFile, insecure) {
        case (let path?, false):
            do {
                o.key = try SRTPKey(contentsOfFile: path, profile: profile)
            } catch {
                throw .init("--srtp-key-file \(path): \(error)")
            }
        case (nil, true):
            guard o.destination.isLoopback else {
                throw .init("--insecure-rtp sends plain RTP, which is allowed only to a loopback address")
            }
        case (_?, true):
            throw .init("give either --srtp-key-file or --insecure-rtp, not both")
        case (nil, false):
            throw .init("--srtp-key-file KEY is required (or --insecure-rtp, to loopback only)")
        }
        return o
    }

    /// `--twcc-id N` (1–14, not abs-send-time's 3) or `off`; without it,
    /// on under the default id when the SDP this share writes can announce it.
    private static func transportWide(_ text: String?, writingSDP: Bool) throws(ArgumentParser.Failure) -> UInt8? {
        guard let text else { return writingSDP ? TransportSequenceNumber.defaultExtensionID : nil }
        if text == "off" { return nil }
        guard let id = UInt8(text), HeaderExtensionBlock.validIDs.contains(id), id != AbsoluteSendTime.extensionID else {
            throw .init("--twcc-id must be an extension id from 1 to 14 other than abs-send-time's 3, or off, not \"\(text)\"")
        }
        return id
    }

    /// The header extensions the stream carries: abs-send-time, and the
    /// transport-wide sequence number when it is on.
    var headerExtensions: HeaderExtensionMap {
        HeaderExtensionMap(absoluteSendTimeID: AbsoluteSendTime.extensionID,
                           transportSequenceNumber: transportWideID.flatMap { TransportSequenceNumber(extensionID: $0) })
            ?? .standard
    }

    /// Parses WxH+X+Y, as X11 geometry is written.
    private static func region(_ text: String) throws(ArgumentParser.Failure) -> (x: Int, y: Int, width: Int, height: Int) {
        let parts = text.split(whereSeparator: { "x+".contains($0) }).compactMap { Int($0) }
        guard parts.count == 4, parts[0] > 0, parts[1] > 0 else {
            throw .init("--region must be WIDTHxHEIGHT+X+Y, such as 1280x720+0+0, not \"\(text)\"")
        }
        return (parts[2], parts[3], parts[0], parts[1])
    }

    private static func address(_ text: String, _ option: String) throws(ArgumentParser.Failure) -> SocketAddress {
        do {
            return try SocketAddress(parsing: text)
        } catch {
            throw .init("--\(option) must be HOST:PORT with a numeric address, such as 127.0.0.1:5004, not \"\(text)\"")
        }
    }
}
