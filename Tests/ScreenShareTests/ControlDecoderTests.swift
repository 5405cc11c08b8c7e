import Encoding
import Events
import RTP
import SRTP
import Transport
import ScreenShare
import ControlProtocol
import Testing

/// The control protocol's decoding, line by line: every command, and every
/// way a line can be wrong. (The behaviour behind the commands is tested
/// through the real `serve` process in EndToEndTests.)
struct ControlDecoderTests {
    static let key30 = Base64.encode((0..<30).map { UInt8($0) })
    static let key16 = Base64.encode((0..<16).map { UInt8($0) })

    func command(_ line: String) throws -> ControlCommand {
        try ControlDecoder.decode(line).get().command
    }

    func error(_ line: String) -> ControlError? {
        if case .failure(let e) = ControlDecoder.decode(line) { return e }
        return nil
    }

    func addReceiver(_ extra: String = "", codecs: String = #"[{"name":"H264","payloadType":102,"profileLevelId":"640028","packetizationMode":1}]"#) -> String {
        #"{"cmd":"addReceiver","id":"a1","receiver":"bob","name":"Bob","destination":"127.0.0.1:5004","codecs":\#(codecs)\#(extra)}"#
    }

    @Test func hello_carriesTheVersionAndALogLevel() throws {
        guard case .hello(let v, let level) = try command(#"{"cmd":"hello","protocol":1,"logLevel":"debug"}"#) else { Issue.record(); return }
        #expect(v == 1 && level == .debug)
        #expect(error(#"{"cmd":"hello"}"#)?.code == .missingField)
        #expect(error(#"{"cmd":"hello","protocol":"one"}"#)?.code == .badField)
    }

    @Test func start_readsSourcePolicySizeAndRate() throws {
        guard case .start(let s) = try command(#"{"cmd":"start","source":"synthetic","policy":"motion","size":"1280x720","fps":15,"scenario":"still"}"#) else {
            Issue.record(); return
        }
        #expect(s.policy == .motion && s.source.width == 1280 && s.source.height == 720 && s.fps == 15 && s.source.scenario == "still")
        guard case .start(let d) = try command(#"{"cmd":"start"}"#) else { Issue.record(); return }
        #expect(d == StartShare())
        #expect(error(#"{"cmd":"start","fps":60}"#)?.field == "fps")
        #expect(error(#"{"cmd":"start","size":"big"}"#)?.field == "size")
        #expect(error(#"{"cmd":"start","policy":"fast"}"#)?.field == "policy")
    }

    func source(_ fields: String) throws -> SourceRequest {
        guard case .start(let s) = try command(#"{"cmd":"start",\#(fields)}"#) else { throw ControlError(.failed, "not start") }
        return s.source
    }

    @Test func start_takesEverySourceThatShareTakes() throws {
        #expect(try source(#""source":"x11""#) == SourceRequest(kind: .x11(display: nil)))
        var monitor = SourceRequest(kind: .x11(display: ":95"))
        monitor.part = .monitor("HDMI-1")
        #expect(try source(#""source":"x11::95","monitor":"HDMI-1""#) == monitor)
        #expect(try source(#""source":"x11::95","window":"0x400001""#).part == .window(0x400001))
        #expect(try source(#""source":"x11::95","window":4194305"#).part == .window(0x400001))
        #expect(try source(#""source":"x11","region":"1280x720+10+20""#).part == .region(x: 10, y: 20, width: 1280, height: 720))
        #expect(try source(#""source":"pipewire:42","pipewireLink":true"#) == { var r = SourceRequest(kind: .pipewire(node: 42)); r.linkPipeWire = true; return r }())
        #expect(try source(#""source":"pipewire""#).kind == .pipewire(node: nil))
        let portal = try source(#""source":"portal","portalWindow":true,"restoreToken":"6c1c7a52-63a5-4bd0-b8b3-1c2f3d8f8a10""#)
        #expect(portal.kind == .portal && portal.portalWindow && portal.restoreToken == "6c1c7a52-63a5-4bd0-b8b3-1c2f3d8f8a10")
    }

    @Test func start_refusesSourceOptionsWhereTheyDoNotBelong() {
        let cases: [(String, String)] = [
            (#""source":"wayland""#, "source"), (#""source":"x11:""#, "source"), (#""source":"pipewire:abc""#, "source"),
            (#""source":"portal:1""#, "source"), (#""source":7"#, "source"),
            (#""monitor":"HDMI-1""#, "monitor"), (#""source":"portal","window":"0x1""#, "window"),
            (#""source":"x11","monitor":"A","window":"0x1""#, "window"), (#""source":"x11","window":"frog""#, "window"),
            (#""source":"x11","window":-1"#, "window"), (#""source":"x11","region":"1280x720""#, "region"),
            (#""source":"x11","monitor":"""#, "monitor"), (#""source":"x11","restoreToken":"t""#, "restoreToken"),
            (#""source":"synthetic","portalWindow":true"#, "portalWindow"), (#""source":"x11","pipewireLink":true"#, "pipewireLink"),
            (#""source":"x11","size":"640x360""#, "size"), (#""source":"portal","scenario":"still""#, "scenario"),
            (#""source":"portal","restoreToken":"""#, "restoreToken"), (#""source":"portal","restoreToken":7"#, "restoreToken"),
        ]
        for (fields, field) in cases {
            let e = error(#"{"cmd":"start",\#(fields)}"#)
            #expect(e?.code == .badField && e?.field == field, "\(fields): \(String(describing: e))")
            #expect(e?.message.isEmpty == false)
        }
        let secret = String(repeating: "s", count: SourceRequest.maxTextLength + 1)
        let long = error(#"{"cmd":"start","source":"portal","restoreToken":"\#(secret)"}"#)
        #expect(long?.field == "restoreToken" && long?.message.contains(secret) == false)
        #expect(long?.message.contains("got \(secret.utf8.count)") == true)
    }

    @Test func setSourceAndSources_takeTheSameGrammar() throws {
        guard case .setSource(let r) = try command(#"{"cmd":"setSource","source":"x11::95","window":"0x400001"}"#) else { Issue.record(); return }
        #expect(r.kind == .x11(display: ":95") && r.part == .window(0x400001))
        guard case .setSource(let synthetic) = try command(#"{"cmd":"setSource"}"#) else { Issue.record(); return }
        #expect(synthetic == SourceRequest(kind: .synthetic))
        #expect(error(#"{"cmd":"setSource","source":"x11","restoreToken":"t"}"#)?.field == "restoreToken")
        guard case .sources(let display) = try command(#"{"cmd":"sources","display":":95"}"#) else { Issue.record(); return }
        #expect(display == ":95")
        guard case .sources(nil) = try command(#"{"cmd":"sources"}"#) else { Issue.record(); return }
        #expect(error(#"{"cmd":"sources","display":5}"#)?.field == "display")
    }

    @Test func addReceiver_readsEveryField() throws {
        let line = addReceiver(#","bind":"127.0.0.1:6000","srtp":{"profile":"AES_CM_128_HMAC_SHA1_80","key":"\#(Self.key30)"},"ssrc":1234,"bitrateMax":2000000,"rtcpDestination":"127.0.0.1:5005","acceptPlainRtcp":true,"h264Level":"3.1""#)
        let request = try ControlDecoder.decode(line).get()
        #expect(request.id == .string("a1"))
        guard case .addReceiver(let add) = request.command else { Issue.record(); return }
        let c = add.config
        #expect(c.id == "bob" && c.displayName == "Bob")
        #expect(c.destination.description == "127.0.0.1:5004" && c.rtcpDestination?.description == "127.0.0.1:5005")
        #expect(c.bind?.description == "127.0.0.1:6000")
        #expect(c.srtp?.bytes == (0..<30).map { UInt8($0) })
        #expect(c.ssrc == 1234 && c.bitrateCap == 2_000_000 && c.acceptPlainRTCP && c.levelLimit == .level3_1)
        #expect(c.codec == .h264(ProfileLevelID(hex: "640028")!) && c.payloadType == 102)
        #expect(!add.insecure)
    }

    @Test func addReceiver_headerExtensions_takeTheNegotiatedIDs() throws {
        // Chromium's numbering: abs-send-time 2, transport-wide cc 4; an extension this sender does not write is ignored.
        let negotiated = #","headerExtensions":[{"uri":"urn:ietf:params:rtp-hdrext:toffset","id":1},"#
            + #"{"uri":"http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time","id":2},"#
            + #"{"uri":"http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01","id":4}]"#
        guard case .addReceiver(let add) = try command(addReceiver(negotiated)) else { Issue.record(); return }
        #expect(add.config.headerExtensions.absoluteSendTimeID == 2)
        #expect(add.config.headerExtensions.transportSequenceNumber?.extensionID == 4)
        // Only transport-wide: no abs-send-time, since the receiver did not negotiate it.
        let alone = #","headerExtensions":[{"uri":"http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01","id":5}]"#
        guard case .addReceiver(let b) = try command(addReceiver(alone)) else { Issue.record(); return }
        #expect(b.config.headerExtensions.absoluteSendTimeID == nil && b.config.headerExtensions.transportSequenceNumber?.extensionID == 5)
        // Absent: abs-send-time under 3, no transport-wide feedback.
        guard case .addReceiver(let c) = try command(addReceiver()) else { Issue.record(); return }
        #expect(c.config.headerExtensions == .standard && c.config.headerExtensions.transportSequenceNumber == nil)
    }

    @Test func addReceiver_headerExtensions_refuseWhatCannotBeWritten() {
        let twcc = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
        let ast = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
        #expect(error(addReceiver(#","headerExtensions":{"uri":"x","id":1}"#))?.field == "headerExtensions")
        #expect(error(addReceiver(#","headerExtensions":[{"id":1}]"#))?.field == "headerExtensions[0]")
        #expect(error(addReceiver(#","headerExtensions":[{"uri":"\#(twcc)","id":15}]"#))?.field == "headerExtensions[0].id")
        #expect(error(addReceiver(#","headerExtensions":[{"uri":"\#(twcc)","id":0}]"#))?.code == .badField)
        #expect(error(addReceiver(#","headerExtensions":[{"uri":"\#(ast)","id":4},{"uri":"\#(twcc)","id":4}]"#))?.field
                == "headerExtensions[1].id")
    }

    @Test func addReceiver_rtx_takesItsPayloadTypeAndSSRC_andRefusesTheMedia() throws {
        guard case .addReceiver(let add) = try command(addReceiver(#","rtx":{"payloadType":97,"ssrc":4242}"#)) else { Issue.record(); return }
        #expect(add.config.retransmission == .init(payloadType: 97, ssrc: 4242))
        guard case .addReceiver(let bare) = try command(addReceiver(#","rtx":{"payloadType":97}"#)) else { Issue.record(); return }
        #expect(bare.config.retransmission == .init(payloadType: 97))
        guard case .addReceiver(let none) = try command(addReceiver("")) else { Issue.record(); return }
        #expect(none.config.retransmission == nil)
        #expect(error(addReceiver(#","rtx":97"#))?.field == "rtx")
        #expect(error(addReceiver(#","rtx":{"payloadType":\#(none.config.payloadType)}"#))?.field == "rtx.payloadType")
        #expect(error(addReceiver(#","rtx":{"payloadType":72}"#))?.field == "rtx.payloadType")
        #expect(error(addReceiver(#","rtx":{"payloadType":97,"ssrc":0}"#))?.field == "rtx.ssrc")
    }

    /// A loopback receiver is sent to from loopback, so nothing off this host reaches the socket; any other from every address.
    @Test func addReceiver_portBindsLoopbackOnlyForALoopbackReceiver() throws {
        guard case .addReceiver(let add) = try command(addReceiver(#","port":6002"#)) else { Issue.record(); return }
        #expect(add.config.bind?.description == "127.0.0.1:6002")
        let away = #"{"cmd":"addReceiver","receiver":"bob","destination":"192.0.2.7:5004","port":6002,"codecs":[{"name":"VP8","payloadType":96}]}"#
        guard case .addReceiver(let far) = try command(away) else { Issue.record(); return }
        #expect(far.config.bind?.description == "0.0.0.0:6002")
        let split = #"{"cmd":"addReceiver","receiver":"bob","destination":"[::1]:5004","rtcpDestination":"[2001:db8::1]:5005","port":6002,"codecs":[{"name":"VP8","payloadType":96}]}"#
        guard case .addReceiver(let both) = try command(split) else { Issue.record(); return }
        #expect(both.config.bind?.description == "[::]:6002")
        #expect(error(addReceiver(#","port":6002,"bind":"127.0.0.1:1""#))?.code == .badField)
    }

    @Test func codecChoice_h264FirstThenVP8() throws {
        let both = #"[{"name":"VP8","payloadType":96},{"name":"H264","payloadType":100,"profileLevelId":"42e01f","packetizationMode":1}]"#
        guard case .addReceiver(let a) = try command(addReceiver(codecs: both)) else { Issue.record(); return }
        #expect(a.config.codec == .h264(.chromiumDefault) && a.config.payloadType == 100)
        let vp8 = #"[{"name":"VP8","payloadType":97}]"#
        guard case .addReceiver(let b) = try command(addReceiver(codecs: vp8)) else { Issue.record(); return }
        #expect(b.config.codec == .vp8 && b.config.payloadType == 97)
        // Mode 0 (the default when absent) cannot take FU-A: VP8 is chosen instead.
        let mode0 = #"[{"name":"H264","payloadType":100},{"name":"VP8","payloadType":96}]"#
        guard case .addReceiver(let c) = try command(addReceiver(codecs: mode0)) else { Issue.record(); return }
        #expect(c.config.codec == .vp8)
        #expect(error(addReceiver(codecs: #"[{"name":"AV1","payloadType":45}]"#))?.code == .noCommonCodec)
        #expect(error(addReceiver(codecs: "[]"))?.code == .badField)
        #expect(error(addReceiver(codecs: #"[{"name":"VP8","payloadType":300}]"#))?.field == "codecs[0].payloadType")
        // RFC 5761 §4: 64–95 would be read as RTCP on a muxed socket.
        for pt in [64, 72, 95] {
            #expect(error(addReceiver(codecs: #"[{"name":"VP8","payloadType":\#(pt)}]"#))?.field == "codecs[0].payloadType")
        }
        for pt in [63, 96] {
            guard case .addReceiver(let d) = try command(addReceiver(codecs: #"[{"name":"VP8","payloadType":\#(pt)}]"#)) else { Issue.record(); return }
            #expect(d.config.payloadType == UInt8(pt))
        }
        #expect(error(addReceiver(codecs: #"[{"name":"H264","payloadType":96,"packetizationMode":1,"profileLevelId":"xyz"}]"#))?.field == "codecs[0].profileLevelId")
        #expect(error(#"{"cmd":"addReceiver","receiver":"bob","destination":"127.0.0.1:5004"}"#)?.field == "codecs")
    }

    @Test func badKeys_sayTheLengthNeverTheBytes() throws {
        let short = error(addReceiver(#","srtp":{"key":"\#(Self.key16)"}"#))
        #expect(short?.code == .badKey && short?.field == "srtp.key")
        #expect(short?.message.contains("30 bytes") == true && short?.message.contains("got 16") == true)
        #expect(short?.message.contains(Self.key16) == false)
        #expect(short?.json.map(\.1.serialized).joined().contains(Self.key16) == false)
        let gcm = error(addReceiver(#","srtp":{"profile":"AEAD_AES_128_GCM","key":"\#(Self.key30)"}"#))
        #expect(gcm?.message.contains("28 bytes") == true && gcm?.message.contains("got 30") == true)
        let notBase64 = error(addReceiver(#","srtp":{"key":"!!!secret!!!"}"#))
        #expect(notBase64?.code == .badKey && notBase64?.message.contains("secret") == false)
        #expect(error(addReceiver(#","srtp":{"profile":"ROT13","key":"\#(Self.key30)"}"#))?.field == "srtp.profile")
        #expect(error(addReceiver(#","srtp":{}"#))?.field == "srtp.key")
        #expect(error(addReceiver(#","srtp":"\#(Self.key30)""#))?.field == "srtp")
    }

    @Test func malformedJSON_neverQuotesTheLine() {
        let e = error(#"{"cmd":"addReceiver","srtp":{"key":"\#(Self.key30)"}"#)
        #expect(e?.code == .malformedJSON)
        #expect(e?.message.contains(Self.key30) == false)
        #expect(error("[1,2]")?.code == .malformedJSON)
        #expect(error("")?.code == .malformedJSON)
        #expect(error(String(repeating: " ", count: ControlDecoder.maxLineLength + 1))?.code == .malformedJSON)
    }

    /// A key given twice could mean either value: the line is refused, whichever object holds it.
    @Test func duplicateKeys_areRefused() {
        #expect(error(#"{"cmd":"hello","protocol":1,"protocol":2}"#)?.code == .malformedJSON)
        #expect(error(addReceiver(#","srtp":{"key":"\#(Self.key30)","key":"\#(Self.key30)"}"#))?.code == .malformedJSON)
        #expect(error(#"{"cmd":"report","receiver":"a","screenStalled":true,"figures":{"x":1,"x":1}}"#)?.code == .malformedJSON)
        // Keys are compared as decoded: an escape does not make a second key of the first.
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(#"{"a":1,"\u0061":2}"#) }
        #expect(throws: Never.self) { try JSONParser.parse(#"{"a":1,"\u0061b":2,"ab\n":3}"#) }
        let many = "{" + (0..<5000).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        #expect(throws: Never.self) { try JSONParser.parse(many) }
        #expect(error(#"{"cmd":"hello","protocol":1,"cmd":"stop"}"#)?.message.contains("twice") == true)
    }

    @Test func unknownCommandAndMissingCmd_echoTheID() {
        let unknown = error(#"{"cmd":"fly","id":7}"#)
        #expect(unknown?.code == .unknownCommand && unknown?.id == .int(7) && unknown?.command == "fly")
        let missing = error(#"{"id":"x"}"#)
        #expect(missing?.code == .missingField && missing?.field == "cmd" && missing?.id == .string("x"))
        #expect(error(#"{"cmd":5}"#)?.code == .missingField)
    }

    @Test func theOtherCommands() throws {
        guard case .removeReceiver(let r) = try command(#"{"cmd":"removeReceiver","receiver":"bob"}"#) else { Issue.record(); return }
        #expect(r == "bob")
        #expect(error(#"{"cmd":"removeReceiver"}"#)?.field == "receiver")
        #expect(error(#"{"cmd":"removeReceiver","receiver":""}"#)?.code == .badField)
        guard case .report(let report) = try command(#"{"cmd":"report","receiver":"bob","screenStalled":true,"figures":{"framesDecoded":3}}"#) else {
            Issue.record(); return
        }
        #expect(report.receiver == "bob" && report.screenStalled && report.figures?["framesDecoded"]?.intValue == 3)
        #expect(error(#"{"cmd":"report","receiver":"bob"}"#)?.field == "screenStalled")
        #expect(error(#"{"cmd":"report","receiver":"bob","screenStalled":"yes"}"#)?.code == .badField)
        guard case .setPolicy(let p) = try command(#"{"cmd":"setPolicy","policy":"detail"}"#) else { Issue.record(); return }
        #expect(p == .detail)
        guard case .updateReceiver(let id, let to) = try command(#"{"cmd":"updateReceiver","receiver":"bob","destination":"[::1]:7000"}"#) else {
            Issue.record(); return
        }
        #expect(id == "bob" && to.description == "[::1]:7000")
        #expect(error(#"{"cmd":"updateReceiver","receiver":"bob","destination":"example.com:1"}"#)?.field == "destination")
        guard case .keyframe(nil) = try command(#"{"cmd":"keyframe"}"#) else { Issue.record(); return }
        guard case .stop = try command(#"{"cmd":"stop"}"#) else { Issue.record(); return }
        guard case .diagnostics = try command(#"{"cmd":"diagnostics"}"#) else { Issue.record(); return }
        guard case .status = try command(#"{"cmd":"status"}"#) else { Issue.record(); return }
        guard case .setLogLevel(.warning) = try command(#"{"cmd":"setLogLevel","level":"warning"}"#) else { Issue.record(); return }
        #expect(error(#"{"cmd":"setLogLevel","level":"loud"}"#)?.field == "level")
    }

    @Test func plainRTP_onlyToLoopbackUnlessAskedAndAllowed() throws {
        func add(_ destination: String, insecure: Bool) throws -> AddReceiver {
            let line = #"{"cmd":"addReceiver","receiver":"r","destination":"\#(destination)","insecure":\#(insecure),"codecs":[{"name":"VP8","payloadType":96}]}"#
            guard case .addReceiver(let a) = try command(line) else { throw ControlError(.failed, "not addReceiver") }
            return a
        }
        #expect(ControlTransportRule.check(try add("127.0.0.1:5004", insecure: false), allowUnencrypted: false) == nil)
        #expect(ControlTransportRule.check(try add("192.0.2.1:5004", insecure: false), allowUnencrypted: true)?.code == .insecureRefused)
        #expect(ControlTransportRule.check(try add("192.0.2.1:5004", insecure: true), allowUnencrypted: false)?.code == .insecureRefused)
        #expect(ControlTransportRule.check(try add("192.0.2.1:5004", insecure: true), allowUnencrypted: true) == nil)
    }

    /// A move off loopback: refused for plain RTP unless allowed, and for any receiver whose socket is bound to loopback.
    @Test func movingOffLoopback_needsPermissionAndASocketThatCanReachIt() throws {
        let key = try SRTPKey(profile: .aes128CmHmacSha1_80, bytes: [UInt8](repeating: 1, count: 30))
        let plain = ReceiverConfig(id: "p", displayName: "P", destination: .ipv4Loopback(port: 9), srtp: nil)
        let secure = ReceiverConfig(id: "s", displayName: "S", destination: .ipv4Loopback(port: 9), srtp: key)
        let away = try SocketAddress(parsing: "192.0.2.1:5004")
        let anywhere = try SocketAddress(parsing: "0.0.0.0:4000")
        let loopback = SocketAddress.ipv4Loopback(port: 4000)
        #expect(ControlTransportRule.checkMove(plain, boundTo: anywhere, to: away, mayLeaveLoopback: false)?.code == .insecureRefused)
        #expect(ControlTransportRule.checkMove(plain, boundTo: anywhere, to: away, mayLeaveLoopback: true) == nil)
        #expect(ControlTransportRule.checkMove(secure, boundTo: anywhere, to: away, mayLeaveLoopback: false) == nil)
        let bound = ControlTransportRule.checkMove(secure, boundTo: loopback, to: away, mayLeaveLoopback: false)
        #expect(bound?.code == .badField && bound?.message.contains("bound to 127.0.0.1:4000") == true)
        #expect(ControlTransportRule.checkMove(plain, boundTo: loopback, to: .ipv4Loopback(port: 7), mayLeaveLoopback: false) == nil)
    }

    /// Numbers out of range, however large, are refused with the field's name, never a trap.
    @Test func numericFields_outOfRange_areRefused() {
        for (extra, field) in [(#","bitrateMax":1e19"#, "bitrateMax"), (#","bitrateMax":-1"#, "bitrateMax"),
                               (#","bitrateMax":1e400"#, "bitrateMax"), (#","ssrc":4294967296"#, "ssrc"),
                               (#","ssrc":0"#, "ssrc"), (#","port":65536"#, "port"), (#","port":1.5"#, "port"),
                               (#","h264Level":"-9223372036854775808""#, "h264Level"), (#","h264Level":"922337203685477581.0""#, "h264Level")] {
            #expect(error(addReceiver(extra))?.field == field, "\(extra)")
        }
        #expect(error(#"{"cmd":"start","fps":1e300}"#)?.field == "fps")
        #expect(error(#"{"cmd":"hello","protocol":99999999999999999999}"#)?.field == "protocol")
        #expect(error(addReceiver(codecs: #"[{"name":"VP8","payloadType":1e19}]"#))?.field == "codecs[0].payloadType")
    }

    @Test func serveOptions() throws {
        #expect(try ServeOptions.parse(["--control", "stdio"]).control == .stdio)
        let unix = try ServeOptions.parse(["--control", "unix:/run/x.sock", "--allow-unencrypted", "--log-level", "debug"])
        #expect(unix.control == .unix(path: "/run/x.sock") && unix.allowUnencrypted && unix.logLevel == .debug)
        #expect(throws: ArgumentParser.Failure.self) { try ServeOptions.parse([]) }
        #expect(throws: ArgumentParser.Failure.self) { try ServeOptions.parse(["--control", "tcp:1"]) }
    }
}
