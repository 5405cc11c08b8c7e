import Encoding
import Events
import RTP
import SRTP
import Transport

/// Turns one JSON line into a typed command or a typed error: a pure
/// function, with no share, socket or clock behind it, so every command and
/// every bad input can be tested (and fuzzed) on its own.
public enum ControlDecoder {
    /// The protocol version this program speaks.
    public static let protocolVersion = 1
    /// Longer lines are refused unread: no command comes near this.
    public static let maxLineLength = 64 * 1024

    public static func decode(_ line: String) -> Result<ControlRequest, ControlError> {
        guard line.utf8.count <= maxLineLength else {
            return .failure(ControlError(.malformedJSON, "a line of \(line.utf8.count) bytes is longer than the \(maxLineLength) allowed"))
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            // The line itself is never quoted back: it may hold a key.
            return .failure(ControlError(.malformedJSON, "not JSON: \(error)"))
        }
        guard case .object = value else {
            return .failure(ControlError(.malformedJSON, "each line must be one JSON object"))
        }
        let id = value["id"]
        let name = value["cmd"]?.stringValue
        do throws(ControlError) {
            guard let name else {
                throw ControlError(.missingField, "every command needs \"cmd\", a string naming it", field: "cmd")
            }
            let fields = ControlFields(value)
            return .success(ControlRequest(id: id, command: try command(name, fields)))
        } catch var error {
            error.id = id
            error.command = name
            return .failure(error)
        }
    }

    private static func command(_ name: String, _ f: ControlFields) throws(ControlError) -> ControlCommand {
        switch name {
        case "hello":
            let version = try f.int("protocol", in: 1...Int(Int32.max))
            return .hello(protocolVersion: version, logLevel: try f.optionalLevel("logLevel"))
        case "start":
            return .start(try start(f))
        case "setSource":
            return .setSource(try source(f))
        case "sources":
            let display = try f.optionalString("display")
            guard (display?.utf8.count ?? 0) <= SourceRequest.maxTextLength else {
                throw ControlError(.badField, "display must be a display name such as :1", field: "display")
            }
            return .sources(display: display)
        case "addReceiver":
            return .addReceiver(try addReceiver(f))
        case "removeReceiver":
            return .removeReceiver(receiver: try f.receiverID())
        case "report":
            return .report(MediaReport(receiver: try f.receiverID(), screenStalled: try f.bool("screenStalled"),
                                       expired: try f.optionalBool("expired") ?? false, figures: f.value["figures"]))
        case "setPolicy":
            return .setPolicy(try f.policy("policy"))
        case "updateReceiver":
            return .updateReceiver(receiver: try f.receiverID(), destination: try f.address("destination"))
        case "keyframe":
            return .keyframe(receiver: try f.optionalString("receiver"))
        case "stop":
            return .stop
        case "diagnostics":
            return .diagnostics
        case "status":
            return .status
        case "setLogLevel":
            guard let level = try f.optionalLevel("level") else {
                throw ControlError(.missingField, "setLogLevel needs \"level\": debug, info, warning or error", field: "level")
            }
            return .setLogLevel(level)
        default:
            throw ControlError(.unknownCommand, "unknown command \"\(name.prefix(40))\"; known: " + ControlCommand.names.joined(separator: ", "),
                               field: "cmd")
        }
    }

    private static func start(_ f: ControlFields) throws(ControlError) -> StartShare {
        var s = StartShare()
        s.source = try source(f)
        if f.value["policy"] != nil { s.policy = try f.policy("policy") }
        if f.value["fps"] != nil { s.fps = try f.int("fps", in: 1...30) }
        return s
    }

    /// The source fields of `start` and `setSource`: `source` with the grammar of `share --source`,
    /// and the options that pick part of it, each refused where it does not belong.
    private static func source(_ f: ControlFields) throws(ControlError) -> SourceRequest {
        func bad(_ field: String, _ message: String) -> ControlError { ControlError(.badField, message, field: field) }
        func given(_ field: String) -> Bool { f.value[field] != nil && f.value[field] != .null }
        var r = SourceRequest(kind: .synthetic)
        if let text = try f.optionalString("source") {
            do throws(SourceRequest.Failure) { r.kind = try SourceRequest.kind(parsing: text) } catch { throw bad(error.option, error.message) }
        }
        let parts = ["monitor", "window", "region"].filter(given)
        guard parts.count <= 1 else { throw bad(parts[1], "give at most one of monitor, window and region") }
        if let monitor = try f.optionalString("monitor") {
            guard !monitor.isEmpty, monitor.utf8.count <= SourceRequest.maxTextLength else {
                throw bad("monitor", "monitor must be a monitor's name as the sources command lists it")
            }
            r.part = .monitor(monitor)
        }
        if given("window"), let window = f.value["window"] {
            let id = window.intValue.flatMap { UInt32(exactly: $0) } ?? window.stringValue.flatMap(SourceRequest.window(parsing:))
            guard let id else { throw bad("window", "window must be a window id such as \"0x400001\", as the sources command lists it") }
            r.part = .window(id)
        }
        if let region = try f.optionalString("region") {
            guard let part = SourceRequest.region(parsing: region) else {
                throw bad("region", "region must be WIDTHxHEIGHT+X+Y such as 1280x720+0+0")
            }
            r.part = part
        }
        r.portalWindow = try f.optionalBool("portalWindow") ?? false
        if let token = try f.optionalString("restoreToken") {
            // The token itself is never quoted back: it grants a share without asking.
            guard !token.isEmpty, token.utf8.count <= SourceRequest.maxTextLength else {
                throw bad("restoreToken", "restoreToken must be the token a restoreToken event gave, "
                          + "at most \(SourceRequest.maxTextLength) bytes (got \(token.utf8.count))")
            }
            r.restoreToken = token
        }
        r.linkPipeWire = try f.optionalBool("pipewireLink") ?? false
        if let size = try f.optionalString("size") {
            let parts = size.replacingOccurrences(of: "×", with: "x").split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (16...8192).contains(w), (16...8192).contains(h) else {
                throw bad("size", "size must be WIDTHxHEIGHT such as 1920x1080")
            }
            (r.width, r.height) = (w, h)
        }
        if let scenario = try f.optionalString("scenario") {
            guard SourceRequest.scenarios.contains(scenario) else { throw bad("scenario", "scenario must be demo, motion or still") }
            r.scenario = scenario
        }
        for option in ["size", "scenario"] where r.kind != .synthetic && given(option) {
            throw bad(option, "\(option) applies to the synthetic source only")
        }
        do throws(SourceRequest.Failure) { try r.validate() } catch { throw bad(error.option, error.message) }
        return r
    }

    private static func addReceiver(_ f: ControlFields) throws(ControlError) -> AddReceiver {
        let id = try f.receiverID()
        let destination = try f.address("destination")
        var rtcp: SocketAddress?
        if f.value["rtcpDestination"] != nil { rtcp = try f.address("rtcpDestination") }
        var bind: SocketAddress?
        if f.value["bind"] != nil { bind = try f.address("bind") }
        if f.value["port"] != nil {
            guard bind == nil else { throw ControlError(.badField, "give bind or port, not both", field: "port") }
            let port = try f.int("port", in: 0...65535)
            bind = .bindAddress(reaching: [destination] + (rtcp.map { [$0] } ?? []), port: UInt16(port))
        }
        var ssrc: UInt32?
        if f.value["ssrc"] != nil { ssrc = UInt32(try f.int("ssrc", in: 1...Int(UInt32.max))) }
        let (codec, payloadType) = try chooseCodec(f)
        var config = ReceiverConfig(
            id: id, displayName: try f.optionalString("name") ?? id, destination: destination, rtcpDestination: rtcp,
            bind: bind, srtp: try srtp(f), payloadType: payloadType, ssrc: ssrc, codec: codec,
            acceptPlainRTCP: try f.optionalBool("acceptPlainRtcp") ?? false)
        if f.value["bitrateMax"] != nil { config.bitrateCap = try f.int("bitrateMax", in: 50_000...100_000_000) }
        if let extensions = try headerExtensions(f) { config.headerExtensions = extensions }
        config.retransmission = try retransmission(f, mediaPayloadType: payloadType, mediaSSRC: ssrc)
        if let level = try f.optionalString("h264Level") {
            guard let parsed = H264Level.parse(level) else {
                throw ControlError(.badField, "h264Level must be a level such as 3.1 or 4.2", field: "h264Level")
            }
            config.levelLimit = parsed
        }
        return AddReceiver(config: config, insecure: try f.optionalBool("insecure") ?? false)
    }

    /// `headerExtensions: [{"uri": …, "id": N}, …]`, the receiver's
    /// `a=extmap` lines: abs-send-time and the transport-wide sequence number
    /// are sent under the ids given, others are ignored. Absent: abs-send-time
    /// under id 3 and no transport-wide feedback.
    private static func headerExtensions(_ f: ControlFields) throws(ControlError) -> HeaderExtensionMap? {
        let field = "headerExtensions"
        guard let value = f.value[field], value != .null else { return nil }
        guard case .array(let entries) = value else {
            throw ControlError(.badField, "\(field) must be an array of {\"uri\": …, \"id\": 1–14}", field: field)
        }
        var absoluteSendTime: UInt8?
        var transportWide: TransportSequenceNumber?
        var ids: Set<Int> = []
        for (i, entry) in entries.enumerated() {
            let name = "\(field)[\(i)]"
            guard case .object = entry, let uri = entry["uri"]?.stringValue else {
                throw ControlError(.badField, "\(name) must be an object with \"uri\" and \"id\"", field: name)
            }
            guard let id = entry["id"]?.intValue, (1...14).contains(id) else {
                throw ControlError(.badField, "\(name).id must be a one-byte extension id from 1 to 14", field: name + ".id")
            }
            guard ids.insert(id).inserted else {
                throw ControlError(.badField, "\(name).id \(id) is given to two extensions", field: name + ".id")
            }
            switch uri {
            case AbsoluteSendTime.uri: absoluteSendTime = UInt8(id)
            case TransportSequenceNumber.uri: transportWide = TransportSequenceNumber(extensionID: UInt8(id))
            default: continue
            }
        }
        return HeaderExtensionMap(absoluteSendTimeID: absoluteSendTime, transportSequenceNumber: transportWide)
    }

    /// `rtx: {"payloadType": N, "ssrc": N}`, the receiver's `rtx/90000`
    /// mapping for the media's payload type; absent, NACKs are answered with
    /// the same bytes.
    private static func retransmission(
        _ f: ControlFields, mediaPayloadType: UInt8, mediaSSRC: UInt32?
    ) throws(ControlError) -> ReceiverConfig.Retransmission? {
        guard let value = f.value["rtx"], value != .null else { return nil }
        guard case .object = value, let pt = value["payloadType"]?.intValue else {
            throw ControlError(.badField, "rtx must be an object: {\"payloadType\": N, \"ssrc\": N}", field: "rtx")
        }
        guard MuxedPacketKind.isSendable(payloadType: pt), pt != Int(mediaPayloadType) else {
            throw ControlError(.badField, "rtx.payloadType must be 0–63 or 96–127 and not the media's \(mediaPayloadType)",
                               field: "rtx.payloadType")
        }
        var ssrc: UInt32?
        if let given = value["ssrc"], given != .null {
            guard let number = given.intValue, (1...Int(UInt32.max)).contains(number), UInt32(number) != mediaSSRC else {
                throw ControlError(.badField, "rtx.ssrc must be a number from 1 to 4294967295, not the media's SSRC", field: "rtx.ssrc")
            }
            ssrc = UInt32(number)
        }
        return ReceiverConfig.Retransmission(payloadType: UInt8(pt), ssrc: ssrc)
    }

    /// `srtp: {"profile": …, "key": base64}`; absent means plain RTP.
    private static func srtp(_ f: ControlFields) throws(ControlError) -> SRTPKey? {
        guard let value = f.value["srtp"], value != .null else { return nil }
        guard case .object = value else {
            throw ControlError(.badField, "srtp must be an object: {\"profile\": …, \"key\": base64}", field: "srtp")
        }
        let profileName = value["profile"]?.stringValue ?? SRTPProfile.aes128CmHmacSha1_80.rawValue
        guard let profile = SRTPProfile(rawValue: profileName) else {
            throw ControlError(.badField, "srtp.profile must be AES_CM_128_HMAC_SHA1_80 or AEAD_AES_128_GCM", field: "srtp.profile")
        }
        guard let text = value["key"]?.stringValue else {
            throw ControlError(.missingField, "srtp needs \"key\": base64 of the master key and salt", field: "srtp.key")
        }
        do {
            return try SRTPKey(base64: text, profile: profile)
        } catch .invalidKeyLength(_, let expected, let got) {
            throw ControlError(.badKey, "srtp.key must be \(expected) bytes of key and salt for \(profile.sdpName), got \(got)",
                               field: "srtp.key")
        } catch {
            throw ControlError(.badKey, "srtp.key is not valid base64 (\(text.utf8.count) characters)", field: "srtp.key")
        }
    }

    /// H.264 (packetization-mode 1) first when the receiver offers it, else
    /// VP8, each with the payload type the receiver gave it.
    static func chooseCodec(_ f: ControlFields) throws(ControlError) -> (ReceiverConfig.Codec, UInt8) {
        guard let value = f.value["codecs"] else {
            throw ControlError(.missingField, "addReceiver needs \"codecs\": what the receiver takes, e.g. "
                               + "[{\"name\":\"H264\",\"payloadType\":96,\"profileLevelId\":\"42e01f\",\"packetizationMode\":1}]",
                               field: "codecs")
        }
        guard case .array(let offers) = value, !offers.isEmpty else {
            throw ControlError(.badField, "codecs must be a non-empty array of codec objects", field: "codecs")
        }
        var h264: (ReceiverConfig.Codec, UInt8)?
        var vp8: (ReceiverConfig.Codec, UInt8)?
        for (i, offer) in offers.enumerated() {
            let field = "codecs[\(i)]"
            guard case .object = offer, let name = offer["name"]?.stringValue else {
                throw ControlError(.badField, "\(field) must be an object with \"name\"", field: field)
            }
            guard let pt = offer["payloadType"]?.intValue, MuxedPacketKind.isSendable(payloadType: pt) else {
                throw ControlError(.badField, "\(field).payloadType must be a number from 0 to 63 or 96 to 127 "
                                   + "(64–95 collide with RTCP under rtcp-mux)", field: field + ".payloadType")
            }
            switch name.uppercased() {
            case "H264":
                // RFC 6184 §8.1: absent means mode 0, which cannot take STAP-A or FU-A.
                guard (offer["packetizationMode"]?.intValue ?? 0) == 1 else { continue }
                var id = ProfileLevelID.chromiumDefault
                if let text = offer["profileLevelId"] {
                    guard let hex = text.stringValue, let parsed = ProfileLevelID(hex: hex) else {
                        throw ControlError(.badField, "\(field).profileLevelId must be six hex digits such as 42e01f",
                                           field: field + ".profileLevelId")
                    }
                    id = parsed
                }
                if h264 == nil { h264 = (.h264(id), UInt8(pt)) }
            case "VP8":
                if vp8 == nil { vp8 = (.vp8, UInt8(pt)) }
            default:
                continue
            }
        }
        guard let chosen = h264 ?? vp8 else {
            throw ControlError(.noCommonCodec, "the receiver offers neither H.264 with packetizationMode 1 nor VP8", field: "codecs")
        }
        return chosen
    }
}
