import Events
import RTP
import Testing
@testable import ScreenShare

/// `share`'s options for the transport-wide sequence number, and the SDP that announces it.
struct ShareOptionsTests {
    static let base = ["--to", "127.0.0.1:5004", "--insecure-rtp"]

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
}
