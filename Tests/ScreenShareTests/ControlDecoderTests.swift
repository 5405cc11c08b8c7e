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
        #expect(s.policy == .motion && s.width == 1280 && s.height == 720 && s.fps == 15 && s.scenario == "still")
        guard case .start(let d) = try command(#"{"cmd":"start"}"#) else { Issue.record(); return }
        #expect(d == StartShare())
        #expect(error(#"{"cmd":"start","fps":60}"#)?.field == "fps")
        #expect(error(#"{"cmd":"start","size":"big"}"#)?.field == "size")
        #expect(error(#"{"cmd":"start","source":"x11"}"#)?.field == "source")
        #expect(error(#"{"cmd":"start","policy":"fast"}"#)?.field == "policy")
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

    @Test func addReceiver_portBindsEveryAddress() throws {
        guard case .addReceiver(let add) = try command(addReceiver(#","port":6002"#)) else { Issue.record(); return }
        #expect(add.config.bind?.description == "0.0.0.0:6002")
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

    @Test func serveOptions() throws {
        #expect(try ServeOptions.parse(["--control", "stdio"]).control == .stdio)
        let unix = try ServeOptions.parse(["--control", "unix:/run/x.sock", "--allow-unencrypted", "--log-level", "debug"])
        #expect(unix.control == .unix(path: "/run/x.sock") && unix.allowUnencrypted && unix.logLevel == .debug)
        #expect(throws: ArgumentParser.Failure.self) { try ServeOptions.parse([]) }
        #expect(throws: ArgumentParser.Failure.self) { try ServeOptions.parse(["--control", "tcp:1"]) }
    }
}
