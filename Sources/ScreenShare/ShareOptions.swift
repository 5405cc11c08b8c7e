import ControlProtocol
import Events
import Encoding
import Foundation
import RTP
import SRTP
import Transport
import Sending

/// `screenshare share …`: one screen to one receiver.
public struct ShareOptions: Sendable {
    public var source = SourceRequest(kind: .synthetic)
    /// Where the portal's restore token is kept (default: `PortalRestoreTokenFile.defaultPath()`).
    public var restoreTokenFile: String?
    public var destination: SocketAddress
    public var rtcpDestination: SocketAddress?
    public var bind: SocketAddress?
    public var key: SRTPKey?
    public var policy = SendPolicy.balanced
    public var bitrateMax = 4_000_000
    public var fps = 30
    public var ssrc: UInt32?
    public var payloadType: UInt8 = 96
    public var sdpPath: String?
    /// The transport-wide sequence number's extension id: the receiver then
    /// sends transport-wide feedback and the estimate is made from it.
    public var transportWideID: UInt8?
    /// RTX's payload type (RFC 4588): NACKed packets then go on an RTX stream of their own.
    public var retransmissionPayloadType: UInt8?
    public var duration: Double?
    public var json = false
    public var acceptPlainRTCP = false
    public var level: H264Level?
    public var profileLevelID = ProfileLevelID.chromiumDefault
    public var logLevel = EventOutput.Level.info
    public var encoderFault: EncoderFault?
    public var captureStopsAfter: Duration?
    /// For tests: the first RTP sequence number, so the numbers wrap within seconds.
    public var firstSequence: UInt16?

    public static func parse(_ arguments: [String]) throws(ArgumentParser.Failure) -> ShareOptions {
        var a = try ArgumentParser(arguments, help: help)
        guard let to = a.string("to") else { throw .init("--to HOST:PORT is required: where the receiver listens") }
        var o = ShareOptions(destination: try address(to, "to"))
        if let text = a.string("source") {
            do throws(SourceRequest.Failure) { o.source = SourceRequest(kind: try SourceRequest.kind(parsing: text)) } catch {
                throw .init("--source: \(error.message)")
            }
        }
        if let r = a.string("rtcp-to") { o.rtcpDestination = try address(r, "rtcp-to") }
        if let b = a.string("bind") { o.bind = try address(b, "bind") }
        if let p = a.string("policy") {
            guard let policy = SendPolicy.parse(p) else { throw .init("--policy must be balanced, detail or motion, not \"\(p)\"") }
            o.policy = policy
        }
        o.bitrateMax = try a.bitrate("bitrate-max") ?? o.bitrateMax
        if let size = try a.size("size") { (o.source.width, o.source.height) = size }
        o.fps = try a.int("fps", in: 1...30) ?? o.fps
        if let p = a.string("payload-type") {
            guard let v = Int(p), MuxedPacketKind.isSendable(payloadType: v) else {
                throw .init("--payload-type must be a number from 0 to 63 or 96 to 127 (64–95 collide with RTCP under rtcp-mux), not \"\(p)\"")
            }
            o.payloadType = UInt8(v)
        }
        if let p = a.string("rtx-pt") {
            guard let v = Int(p), MuxedPacketKind.isSendable(payloadType: v), v != Int(o.payloadType) else {
                throw .init("--rtx-pt must be a payload type from 0 to 63 or 96 to 127 other than the media's \(o.payloadType), not \"\(p)\"")
            }
            o.retransmissionPayloadType = UInt8(v)
        }
        if let s = a.string("ssrc") {
            guard let v = UInt32(s), v != 0 else { throw .init("--ssrc must be a number from 1 to 4294967295, not \"\(s)\"") }
            o.ssrc = v
        }
        if let f = a.string("first-sequence") {
            guard let v = UInt16(f) else { throw .init("--first-sequence must be a number from 0 to 65535, not \"\(f)\"") }
            o.firstSequence = v
        }
        o.sdpPath = a.string("sdp")
        o.transportWideID = try transportWide(a.string("twcc-id"), writingSDP: o.sdpPath != nil)
        o.duration = try a.seconds("duration")
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
        o.source.scenario = a.string("scenario") ?? o.source.scenario
        let parts = ["monitor", "window", "region"].compactMap { name in a.string(name).map { (name, $0) } }
        guard parts.count <= 1 else { throw .init("give at most one of --monitor, --window and --region") }
        switch parts.first {
        case ("monitor", let name)?:
            o.source.part = .monitor(name)
        case ("window", let w)?:
            guard let id = SourceRequest.window(parsing: w) else {
                throw .init("--window must be a window id such as 0x400001 (see screenshare sources), not \"\(w)\"")
            }
            o.source.part = .window(id)
        case (_, let r)?:
            guard let region = SourceRequest.region(parsing: r) else {
                throw .init("--region must be WIDTHxHEIGHT+X+Y, such as 1280x720+0+0, not \"\(r)\"")
            }
            o.source.part = region
        case nil:
            break
        }
        o.source.linkPipeWire = a.flag("pipewire-link")
        o.source.portalWindow = a.flag("portal-window")
        o.restoreTokenFile = a.string("restore-token-file")
        let spelling = ["portalWindow": "--portal-window", "pipewireLink": "--pipewire-link"]
        do throws(SourceRequest.Failure) { try o.source.validate { spelling[$0] ?? "--" + $0 } } catch { throw .init(error.message) }
        if let l = a.string("log-level") {
            guard let level = EventOutput.Level(name: l) else { throw .init("--log-level must be debug, info, warning or error") }
            o.logLevel = level
        }
        if let f = a.string("fault") {
            if f.hasPrefix("capture-stops:"), let seconds = Double(f.dropFirst("capture-stops:".count)), seconds.isFinite,
               (0...ArgumentParser.maxSeconds).contains(seconds) {
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
        if let extra = a.positional.first { throw .init("unexpected argument \"\(extra)\"") }
        switch (keyFile, insecure) {
        case (let path?, false):
            do {
                o.key = try SRTPKey(contentsOfFile: path, profile: profile)
            } catch {
                throw .init("--srtp-key-file \(path): \(error)")
            }
        case (nil, true):
            // docs/behaviour.md §8.4: every destination of plain RTP and RTCP, not only the first.
            guard o.destination.isLoopback, o.rtcpDestination?.isLoopback ?? true else {
                throw .init("--insecure-rtp sends plain RTP and RTCP, which are allowed only to loopback addresses (--to and --rtcp-to)")
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

    private static func address(_ text: String, _ option: String) throws(ArgumentParser.Failure) -> SocketAddress {
        do {
            return try SocketAddress(parsing: text)
        } catch {
            throw .init("--\(option) must be HOST:PORT with a numeric address, such as 127.0.0.1:5004, not \"\(text)\"")
        }
    }
}
