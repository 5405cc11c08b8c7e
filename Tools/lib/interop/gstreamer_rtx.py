"""GStreamer taking retransmissions on a stream of their own (RFC 4588): an
rtpsession with rtprtxreceive in front of its jitter buffer, wired the way
rtprtxreceive's own documentation wires it, with packets lost before it. The
RTX packets must be read by a receiver that is not the project's own: their
payload type, SSRC and original sequence number are what put each back in
its place.

Plain RTP, on loopback: under gst-launch, srtpdec decrypts only the SSRCs its
caps name, and the RTX SSRC is the sender's to choose (it says which in its
`sending` event). RTX under SRTP is the project's own receiver's to read
(`screen-receiver --rtx-pt`, SimulatedCallTests)."""
import os
import re

from interop.check import SSRC
from interop.gstreamer import share_for

PORT, RTCP_PORT, SENDER_PORT = 5004, 5005, 5006
MEDIA_PT, RTX_PT = 96, 97
LOSS = 0.02
RTX_LINE = re.compile(r"Got rtx packet: rtx seqnum (\d+), rtx ssrc ([0-9A-Fa-f]+), rtx pt (\d+), orig seqnum (\d+), orig pt (\d+)")


def check_gstreamer_rtx(check):
    """2 % loss before rtpsession ! rtprtxreceive (96 → RTX 97): NACKs answered on the announced RTX SSRC and payload type, read back by rtprtxreceive, ≥ 90 % decoded."""
    check.row.update(peer="GStreamer rtprtxreceive 2%")
    gst = check.start("gst", gst_argv(), env=dict(os.environ, GST_DEBUG="rtprtxreceive:5", GST_DEBUG_NO_COLOR="1"))
    if not check.expect(gst.wait_for_line(lambda l: "PLAYING" in l, 10), "gst-launch did not start"):
        return
    sender = check.sender([
        "--size", "1280x720", "--scenario", "motion", "--to", "127.0.0.1:%d" % PORT, "--rtcp-to", "127.0.0.1:%d" % RTCP_PORT,
        "--bind", "127.0.0.1:%d" % SENDER_PORT, "--ssrc", str(SSRC), "--rtx-pt", str(RTX_PT)], srtp=False)
    figures, frames, _, sent = share_for(check, gst, sender, 9)
    announced = next((e.get("rtxSsrc") for _, e in sender.events("sending")), None)
    read = [m.groups() for m in (RTX_LINE.search(line) for _, line in gst.output()) if m]
    check.note("NACK %d, retransmitted %d; rtprtxreceive read %d RTX packets" % (
        figures.get("nack", 0), figures.get("retransmitted", 0), len(read)))
    check.expect(figures.get("retransmitted", 0) > 0, "no packet retransmitted")
    check.expect(announced is not None and announced != SSRC, "the sending event gave RTX SSRC %r" % announced)
    check.expect(read, "rtprtxreceive read no RTX packet")
    wrong = [r for r in read if int(r[1], 16) != announced or int(r[2]) != RTX_PT or int(r[4]) != MEDIA_PT]
    check.expect(not wrong, "%d RTX packets not on SSRC %r, payload type %d for %d: %s" % (
        len(wrong), announced, RTX_PT, MEDIA_PT, wrong[:3]))
    check.expect(len(frames) >= 0.9 * sent, "decoded %d of %d frames with 2 %% loss" % (len(frames), sent))


def gst_argv():
    caps = ("application/x-rtp, media=(string)video, clock-rate=(int)90000, encoding-name=(string)H264, "
            "payload=(int)%d, rtcp-fb-nack-pli=(boolean)true, rtcp-fb-nack=(boolean)true" % MEDIA_PT)
    return ["gst-launch-1.0", "-v", "rtpsession", "name=rs", "rtp-profile=avpf",
            "udpsrc", "address=127.0.0.1", "port=%d" % PORT, "caps=" + caps, "!",
            "identity", "drop-probability=%s" % LOSS, "!", "rs.recv_rtp_sink",
            "udpsrc", "address=127.0.0.1", "port=%d" % RTCP_PORT, "caps=application/x-rtcp", "!", "rs.recv_rtcp_sink",
            "rs.recv_rtp_src", "!", "rtprtxreceive", "name=rx",
            "payload-type-map=application/x-rtp-pt-map,%d=(uint)%d" % (MEDIA_PT, RTX_PT), "!",
            "rtpssrcdemux", "!", "rtpjitterbuffer", "do-retransmission=true", "latency=300", "!",
            "rtph264depay", "request-keyframe=true", "!", "h264parse", "!", "avdec_h264", "name=dec", "!",
            "fakesink", "name=sink", "silent=false", "sync=false",
            "rs.send_rtcp_src", "!", "udpsink", "host=127.0.0.1", "port=%d" % SENDER_PORT, "sync=false", "async=false"]


CHECKS = [
    ("gstreamer-rtx", check_gstreamer_rtx, "gst-launch-1.0 (rtpsession, rtprtxreceive, identity)"),
]
