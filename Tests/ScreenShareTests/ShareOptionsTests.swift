import Events
import RTP
@testable import ScreenShare
import Testing

/// `share`'s options: the transport-wide sequence number and the SDP that announces it; every number is range-checked with a clear error, never a trap, and plain RTP goes
/// only to loopback, RTCP included (docs/behaviour.md §8.4).
struct ShareOptionsTests {
    static let base = ["--to", "127.0.0.1:5004", "--insecure-rtp"]

    func refusal(_ extra: [String]) -> String? {
        do {
            _ = try ShareOptions.parse(Self.base + extra)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func bitrates_outOfRange_areRefusedByName() throws {
        for text in ["1e19", "inf", "nan", "-4M", "0", "101M", "40k", "1e400k", "9223372036854775807"] {
            let said = refusal(["--bitrate-max", text])
            #expect(said?.hasPrefix("--bitrate-max must be a bitrate from 50k to 100M") == true, "\(text): \(said ?? "accepted")")
        }
        #expect(try ShareOptions.parse(Self.base + ["--bitrate-max", "1.5M"]).bitrateMax == 1_500_000)
        #expect(try ShareOptions.parse(Self.base + ["--bitrate-max", "100M"]).bitrateMax == 100_000_000)
    }

    @Test func times_outOfRange_areRefusedByName() {
        for text in ["inf", "nan", "1e300", "-1", "604801"] {
            #expect(refusal(["--duration", text])?.hasPrefix("--duration must be a number of seconds from 0 to 604800") == true, "\(text)")
        }
        for fault in ["capture-stops:1e300", "capture-stops:nan", "encoder-stops:1e300", "encoder-hangs:inf", "encoder-stops:-2"] {
            #expect(refusal(["--fault", fault])?.hasPrefix("--fault must be") == true, "\(fault)")
        }
    }

    @Test func regionsAndPayloadTypes_outOfRange_areRefused() throws {
        for region in ["1x1+9223372036854775807+0", "99999x10+0+0", "0x10+0+0", "10x10+-5+0"] {
            #expect(refusal(["--region", region])?.hasPrefix("--region must be") == true, "\(region)")
        }
        for pt in ["64", "72", "95", "128", "-1", "1e2"] {
            #expect(refusal(["--payload-type", pt])?.hasPrefix("--payload-type must be a number from 0 to 63 or 96 to 127") == true, "\(pt)")
        }
        #expect(try ShareOptions.parse(Self.base + ["--payload-type", "100"]).payloadType == 100)
        for level in ["-9223372036854775808", "922337203685477581.0", "3.10", "7"] {
            #expect(refusal(["--h264-level", level])?.hasPrefix("--h264-level must be a level") == true, "\(level)")
        }
        #expect(try ShareOptions.parse(Self.base + ["--h264-level", "4"]).level?.idc == 40)
        #expect(try ShareOptions.parse(Self.base).payloadType == 96)
    }

    @Test func insecureRTP_everyDestinationOnLoopback() throws {
        #expect(refusal(["--rtcp-to", "192.0.2.1:5005"])?.contains("loopback") == true)
        #expect(refusal(["--rtcp-to", "[2001:db8::1]:5005"])?.contains("loopback") == true)
        #expect(try ShareOptions.parse(Self.base + ["--rtcp-to", "127.0.0.1:5005"]).rtcpDestination?.description == "127.0.0.1:5005")
        #expect(throws: ArgumentParser.Failure.self) { try ShareOptions.parse(["--to", "192.0.2.1:5004", "--insecure-rtp"]) }
    }

    @Test func transportWide_onByDefaultOnlyWithAnSDP() throws {
        #expect(try ShareOptions.parse(Self.base).transportWideID == nil)
        #expect(try ShareOptions.parse(Self.base + ["--sdp", "/tmp/x.sdp"]).transportWideID == 5)
        #expect(try ShareOptions.parse(Self.base + ["--sdp", "/tmp/x.sdp", "--twcc-id", "off"]).transportWideID == nil)
        #expect(try ShareOptions.parse(Self.base + ["--twcc-id", "9"]).transportWideID == 9)
        for bad in ["0", "15", "3", "five"] {
            #expect(throws: ArgumentParser.Failure.self) { try ShareOptions.parse(Self.base + ["--twcc-id", bad]) }
        }
    }

    @Test func sdp_announcesTheExtensionsAndTransportCC() throws {
        let options = try ShareOptions.parse(Self.base + ["--twcc-id", "7"])
        let sdp = SessionDescription(destination: options.destination, payloadType: 96, codec: .vp8, ssrc: 42, key: nil,
                                     extensions: options.headerExtensions).text
        #expect(sdp.contains("a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r\n"))
        #expect(sdp.contains("a=extmap:7 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n"))
        #expect(sdp.contains("a=rtcp-fb:96 transport-cc\r\n"))
        let plain = SessionDescription(destination: options.destination, payloadType: 96, codec: .vp8, ssrc: 42, key: nil).text
        #expect(!plain.contains("transport-cc") && plain.contains("a=extmap:3 "))
    }

    @Test func sdp_announcesRTX_withItsSSRCGroup() throws {
        let options = try ShareOptions.parse(Self.base + ["--rtx-pt", "97"])
        #expect(options.retransmissionPayloadType == 97)
        let sdp = SessionDescription(destination: options.destination, payloadType: 96, codec: .vp8, ssrc: 42, key: nil,
                                     retransmission: (97, 43)).text
        #expect(sdp.contains(" RTP/AVP 96 97\r\n"))
        #expect(sdp.contains("a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"))
        #expect(sdp.contains("a=ssrc-group:FID 42 43\r\na=ssrc:42 cname:screenshare\r\na=ssrc:43 cname:screenshare\r\n"))
        #expect(throws: ArgumentParser.Failure.self) { try ShareOptions.parse(Self.base + ["--rtx-pt", "96"]) }
        #expect(throws: ArgumentParser.Failure.self) { try ShareOptions.parse(Self.base + ["--rtx-pt", "80"]) }
    }
}
