import Foundation
import Testing

/// GStreamer, an independent receiver, decodes what screenshare sends, with
/// only what the SDP that screenshare wrote tells it.
@Suite(.serialized) struct GStreamerInteropTests {
    /// Reads a value from an `a=` line of the SDP.
    func attribute(_ sdp: String, _ prefix: String) -> String? {
        sdp.split(whereSeparator: \.isNewline).first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test func gstreamerDecodesTheStreamDescribedByTheSDP() throws {
        let key = try makeKeyFile()
        let sdpPath = NSTemporaryDirectory() + "screenshare-\(UUID().uuidString).sdp"
        let port = Int.random(in: 20_000...40_000) & ~1
        // GStreamer listens first, set up from the key and SSRC the test
        // chose; the SDP the sender writes must say the same. A plain
        // `udpsrc ! srtpdec` pipeline takes no muxed RTCP, so the sender's
        // reports go to the next port, as RTP/SAVP without rtcp-mux expects.
        let keyBytes = try #require(Data(base64Encoded: key.base64))
        let hex = keyBytes.map { String(format: "%02x", $0) }.joined()
        let caps = "application/x-srtp, media=(string)video, clock-rate=(int)90000, encoding-name=(string)H264, payload=(int)96, "
            + "ssrc=(uint)305419896, srtp-key=(buffer)\(hex), srtp-cipher=(string)aes-128-icm, srtp-auth=(string)hmac-sha1-80, "
            + "srtcp-cipher=(string)aes-128-icm, srtcp-auth=(string)hmac-sha1-80"
        let gst = try ManagedProcess("/usr/bin/gst-launch-1.0", [
            "-v", "udpsrc", "address=127.0.0.1", "port=\(port)", "caps=\(caps)", "!", "srtpdec", "!", "rtph264depay", "!",
            "h264parse", "!", "avdec_h264", "name=dec", "!", "fakesink", "name=sink", "silent=false", "sync=false",
        ])
        #expect(gst.waitFor(timeout: 5) { $0.lines.contains { $0.contains("PLAYING") } })
        let sender = try ManagedProcess("screenshare", ["share", "--size", "1280x720", "--scenario", "motion", "--to", "127.0.0.1:\(port)",
                                                        "--rtcp-to", "127.0.0.1:\(port + 1)",
                                                        "--srtp-key-file", key.path, "--ssrc", "305419896", "--sdp", sdpPath,
                                                        "--duration", "8", "--json"])
        #expect(sender.waitFor(timeout: 5) { _ in FileManager.default.fileExists(atPath: sdpPath) })
        let sdp = try String(contentsOfFile: sdpPath, encoding: .utf8)
        #expect(attribute(sdp, "a=ssrc:")?.hasPrefix("305419896 ") == true)
        #expect(attribute(sdp, "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:") == key.base64)
        #expect(sdp.contains("m=video \(port) RTP/SAVP 96"))
        #expect(!sdp.contains("a=rtcp-mux"))
        #expect(sender.waitForExit(timeout: 20) == 0)
        gst.kill()
        let decoded = gst.lines.filter { $0.contains("sink: last-message = chain") }.count
        let sent = try #require(sender.events("status").last?["framesSent"] as? Int)
        #expect(decoded > 100, "GStreamer decoded \(decoded) of \(sent) frames")
        #expect(gst.lines.contains { $0.contains("dec.GstPad:src: caps") && $0.contains("width=(int)1280") && $0.contains("height=(int)720") })
    }
}
