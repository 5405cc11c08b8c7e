"""GStreamer decoding what screenshare sends: srtpdec into avdec_h264 or vp8dec."""
import json
import time

import gst_decode
from interop.check import SSRC
from interop.sender import stop_sender


def srtp_caps(check, extra=""):
    return gst_decode.srtp_caps(check.key_hex, SSRC, extra)


def gst_decoded(gst):
    frames = [t for t, line in gst.output() if "sink: last-message = chain" in line]
    size = ""
    for _, line in gst.output():
        if "dec.GstPad:src: caps" in line:
            m = gst_decode.CAPS_SIZE.search(line)
            if m:
                size = "%sx%s" % m.groups()
    return frames, size


def share_for(check, gst, sender, seconds):
    """Lets `sender` share for `seconds`, stops it and then `gst`, and fills the row in;
    returns the sender's figures, the frames GStreamer decoded, their size and how many were sent."""
    time.sleep(seconds)
    figures, status = stop_sender(check, sender)
    time.sleep(0.5)
    gst.stop()
    frames, size = gst_decoded(gst)
    sent = figures.get("sent", status.get("framesSent", 0))
    check.row.update(sent=sent, decoded=len(frames), size=size, first=(frames[0] - sender.started) if frames else None)
    return figures, frames, size, sent


def check_gstreamer_decode(check):
    """srtpdec ! rtph264depay ! avdec_h264 decodes ≥ 95 % of the frames sent, at the size sent."""
    check.row.update(peer="GStreamer avdec_h264")
    port = 5004
    gst = check.start("gst", ["gst-launch-1.0", "-v", "udpsrc", "address=127.0.0.1", "port=%d" % port,
                              "caps=" + srtp_caps(check), "!", "srtpdec", "!", "rtph264depay", "!", "h264parse", "!",
                              "avdec_h264", "name=dec", "!", "fakesink", "name=sink", "silent=false", "sync=false"])
    if not check.expect(gst.wait_for_line(lambda l: "PLAYING" in l, 10), "gst-launch did not start"):
        return
    sender = check.sender(["--size", "1280x720", "--scenario", "motion", "--to", "127.0.0.1:%d" % port,
                           "--rtcp-to", "127.0.0.1:%d" % (port + 1), "--ssrc", str(SSRC)])
    _, frames, size, sent = share_for(check, gst, sender, 8)
    check.expect(sent > 150, "only %d frames sent in 8 s" % sent)
    check.expect(len(frames) >= 0.95 * sent, "GStreamer decoded %d of %d frames" % (len(frames), sent))
    check.expect(size == "1280x720", "decoded size %r, not 1280x720" % size)


def check_gstreamer_vp8(check):
    """srtpdec ! rtpvp8depay ! vp8dec decodes the VP8 that `serve` sends a receiver offering only VP8."""
    check.row.update(peer="GStreamer vp8dec", codec="VP8")
    port = 5004
    caps = srtp_caps(check).replace("encoding-name=(string)H264", "encoding-name=(string)VP8").replace(
        "payload=(int)96", "payload=(int)100")
    gst = check.start("gst", ["gst-launch-1.0", "-v", "udpsrc", "address=127.0.0.1", "port=%d" % port,
                              "caps=" + caps, "!", "srtpdec", "!", "rtpvp8depay", "!", "vp8dec", "name=dec", "!",
                              "fakesink", "name=sink", "silent=false", "sync=false"])
    if not check.expect(gst.wait_for_line(lambda l: "PLAYING" in l, 10), "gst-launch did not start"):
        return
    started = time.monotonic()
    serve = check.serve({"cmd": "addReceiver", "receiver": "gst", "name": "GStreamer", "destination": "127.0.0.1:%d" % port,
                         "rtcpDestination": "127.0.0.1:%d" % (port + 1), "ssrc": SSRC, "srtp": {"key": check.key_b64},
                         "codecs": [{"name": "VP8", "payloadType": 100}]})
    time.sleep(8)
    statuses = [o for _, o in serve.events("status")]
    sent = max([o.get("framesSent", 0) for o in statuses if o.get("receiver") == "gst"] or [0])
    codec = next((o.get("codec") for o in statuses if o.get("receiver") == "gst"), None)
    serve.send(json.dumps({"cmd": "stop"}))
    serve.stop(10)
    time.sleep(0.5)
    gst.stop()
    frames, size = gst_decoded(gst)
    check.row.update(sent=sent, decoded=len(frames), size=size, first=(frames[0] - started) if frames else None)
    check.expect(codec == "VP8", "the sender chose %r, not VP8" % codec)
    check.expect(sent > 150, "only %d frames sent in 8 s" % sent)
    check.expect(len(frames) >= 0.9 * sent, "GStreamer decoded %d of %d VP8 frames" % (len(frames), sent))
    check.expect(size == "1280x720", "decoded size %r, not 1280x720" % size)


CHECKS = [
    ("gstreamer-decode", check_gstreamer_decode, "gst-launch-1.0 (srtpdec, avdec_h264)"),
    ("gstreamer-vp8", check_gstreamer_vp8, "GStreamer's vp8dec"),
]
