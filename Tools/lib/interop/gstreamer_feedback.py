"""GStreamer's rtpbin (AVPF) as a receiver that talks back through srtpenc:
its PLI, FIR and NACK must reach the sender and be answered."""
import time

from interop.check import SSRC, variant
from interop.gstreamer import gst_decoded, srtp_caps
from interop.sender import requests_answered, sent_at, stop_sender


# LossBasedEstimator.highLoss: NACKed loss above it lowers the rate.
HIGH_LOSS = 0.10


def run_feedback(check, fb, loss, retransmit, late_join):
    port, sender_port = 5004, 5006
    sender = None
    if late_join:
        sender = check.sender(["--size", "1280x720", "--scenario", "motion", "--to", "127.0.0.1:%d" % port,
                               "--bind", "127.0.0.1:%d" % sender_port, "--ssrc", str(SSRC)])
        time.sleep(2)
    gst = check.start("gst", gst_argv(check, port, sender_port, fb, loss, retransmit))
    if not check.expect(gst.wait_for_line(lambda l: "PLAYING" in l, 10), "gst-launch did not start"):
        return None
    joined = time.monotonic()
    if sender is None:
        sender = check.sender(["--size", "1280x720", "--scenario", "motion", "--to", "127.0.0.1:%d" % port,
                               "--bind", "127.0.0.1:%d" % sender_port, "--ssrc", str(SSRC)])
    time.sleep(9)
    figures, status = stop_sender(check, sender)
    time.sleep(0.5)
    gst.stop()
    frames, size = gst_decoded(gst)
    # A receiver that joins late can decode only from the keyframe it asked
    # for: count the frames sent from then (its first frame, less rtpbin's 300 ms).
    sent_before = int(sent_at(sender, frames[0] - 0.3)) if late_join and frames else 0
    sent = figures.get("sent", status.get("framesSent", 0))
    start = max(joined, sender.started)
    check.row.update(sent=sent - sent_before, decoded=len(frames), size=size,
                     first=(frames[0] - start) if frames else None)
    # rtpbin short of CPU asks for packets that were only late: what its NACKs name is loss to the
    # sender (docs/behaviour.md §7), and above the high-loss line the rate, and with it the size, may fall.
    asked = figures.get("named", 0) / max(figures.get("packets", 0), 1)
    check.note("rtpbin's NACKs named %.1f %% of the packets sent" % (100 * asked))
    if asked <= HIGH_LOSS:
        check.expect(size == "1280x720", "decoded size %r, not 1280x720" % size)
    check.expect(figures.get("unauthenticated", 0) == 0,
                 "%d feedback packets failed SRTCP authentication" % figures.get("unauthenticated", 0))
    # With loss, rtpbin sends early feedback in AVPF compounds with empty RRs
    # and a report block only every few seconds: count RRs only without loss.
    if not loss:
        check.expect(figures.get("rr", 0) > 0, "no receiver report from rtpbin reached the sender")
    return figures, frames, sent - sent_before


def gst_argv(check, port, feedback_port, fb, loss, retransmit):
    extra = ", rtcp-fb-nack-pli=(boolean)true"
    if fb == "fir":
        extra += ", rtcp-fb-ccm-fir=(boolean)true"
    if retransmit:
        extra += ", rtcp-fb-nack=(boolean)true"
    argv = ["gst-launch-1.0", "-v",
            "rtpbin", "name=rb", "rtp-profile=avpf", "latency=300",
            "do-retransmission=%s" % ("true" if retransmit else "false"),
            "srtpenc", "name=se", "key=" + check.key_hex,
            "rtp-cipher=aes-128-icm", "rtp-auth=hmac-sha1-80", "rtcp-cipher=aes-128-icm", "rtcp-auth=hmac-sha1-80",
            "udpsrc", "address=127.0.0.1", "port=%d" % port, "caps=" + srtp_caps(check, extra), "!"]
    if loss:
        argv += ["identity", "drop-probability=%s" % loss, "!"]
    argv += ["srtpdec", "name=sd",
             "sd.rtp_src", "!", "rb.recv_rtp_sink_0",
             "sd.rtcp_src", "!", "rb.recv_rtcp_sink_0",
             "rb.", "!", "rtph264depay", "request-keyframe=true", "!", "h264parse", "!",
             "avdec_h264", "name=dec", "automatic-request-sync-points=true", "!",
             "fakesink", "name=sink", "silent=false", "sync=false",
             "rb.send_rtcp_src_0", "!", "se.rtcp_sink_0",
             "se.rtcp_src_0", "!", "udpsink", "host=127.0.0.1", "port=%d" % feedback_port, "sync=false", "async=false"]
    return argv


def check_keyframe_request(check, kind):
    """A late joiner asking with `kind` (PLI or FIR) gets a keyframe and decodes from it."""
    check.row.update(peer="GStreamer rtpbin %s" % kind)
    out = run_feedback(check, kind.lower(), 0, False, late_join=True)
    if out is None:
        return
    figures, frames, sent = out
    check.row["recovery"] = check.row["first"]
    check.expect(figures.get(kind.lower(), 0) > 0, "no %s reached the sender" % kind)
    check.expect(figures.get("made", 0) >= 2, "no keyframe made after the %s (%d made)" % (kind, figures.get("made", 0)))
    requests_answered(check, figures, kind)
    check.expect(len(frames) >= 0.95 * sent, "decoded %d of %d frames sent from the keyframe the join asked for" % (len(frames), sent))


check_gstreamer_pli = variant(check_keyframe_request, "rtpbin (avpf) joins a running share: its PLI brings a keyframe; RR "
                              "arrives; every request answered.", kind="PLI")
check_gstreamer_fir = variant(check_keyframe_request, "rtpbin with rtcp-fb-ccm-fir joins a running share: its FIR brings a "
                              "keyframe.", kind="FIR")


def check_gstreamer_nack(check):
    """0.5 % loss before srtpdec, rtpbin do-retransmission: NACKs answered by retransmissions, ≥ 90 % decoded."""
    check.row.update(peer="GStreamer rtpbin NACK 0.5%")
    out = run_feedback(check, "pli", 0.005, True, late_join=False)
    if out is None:
        return
    figures, frames, sent = out
    check.expect(figures.get("nack", 0) > 0, "no NACK reached the sender")
    check.expect(figures.get("retransmitted", 0) > 0, "no packet retransmitted")
    check.note("NACK %d, retransmitted %d, RR blocks %d, PLI %d, keyframes %d" % (
        figures.get("nack", 0), figures.get("retransmitted", 0), figures.get("rr", 0), figures.get("pli", 0), figures.get("made", 0)))
    requests_answered(check, figures, "PLI")
    check.expect(len(frames) >= 0.90 * sent, "decoded %d of %d frames with 0.5 %% loss" % (len(frames), sent))


CHECKS = [
    ("gstreamer-pli", check_gstreamer_pli, "gst-launch-1.0 (rtpbin, srtpenc)"),
    ("gstreamer-fir", check_gstreamer_fir, "gst-launch-1.0 (rtpbin, srtpenc)"),
    ("gstreamer-nack", check_gstreamer_nack, "gst-launch-1.0 (rtpbin, srtpenc, identity)"),
]
