"""GStreamer's rtpbin behind a real 1.5 Mbit/s uplink: a receiver that sends
only standard feedback (RR, generic NACK, PLI; no REMB, no transport-cc)
must still get a picture that moves, because the sender reads loss from
that feedback and lowers its rate to what the link carries."""
import json
import os

import gst_decode
import link as emulated
import viewing
from interop.check import SSRC
from interop.sender import stop_sender

SECONDS = 15
RATE = 1_500_000
PORT, SENDER_PORT = 5004, 5006
FPS_FLOOR, DROP_CEILING = 20, 0.03


def check_gstreamer_constrained(check):
    """1080p demo to rtpbin (RR/NACK/PLI only) behind tbf 1.5mbit: after 3 s ≥ 20 fps while moving, no gap > 0.5 s, < 3 % dropped."""
    check.row.update(peer="rtpbin RR/NACK/PLI, tbf 1.5 Mbit/s")
    link = emulated.Link("ssic", "ic")
    try:
        link.up(RATE)
        run(check, link)
    finally:
        link.down()


def run(check, link):
    viewer = gst_decode.Viewer(check.work, "rtpbin", 1920, 1080)
    gst = check.start("gst", link.in_receiver(gst_decode.rtpbin_argv(
        check.key_hex, SSRC, (link.receiver_address, PORT), (link.sender_address, SENDER_PORT), viewer)))
    if not check.expect(gst.wait_for_line(lambda l: "PLAYING" in l, 10), "gst-launch did not start"):
        return
    target = link.start_row(emulated.Profile("constrained", RATE), check.work, "constrained",
                            "%s:%d" % (link.receiver_address, PORT))
    # A user's share: the demo screen at 1080p, Balanced, the default cap.
    sender = check.start("screenshare", link.in_sender([
        os.path.join(check.bin, "screenshare"), "share", "--source", "synthetic", "--srtp-key-file", check.key_path,
        "--json", "--size", "1920x1080", "--to", target,
        "--bind", "%s:%d" % (link.sender_address, SENDER_PORT), "--ssrc", str(SSRC)]))
    link.begin()
    link.run_for(SECONDS)
    figures, status = stop_sender(check, sender)
    # The bottleneck's counters every quarter second, to read a failure against the sender's status lines.
    with open(os.path.join(check.work, "bottleneck.json"), "w") as f:
        json.dump(link.samples, f)
    gst.stop()
    times, sizes = gst_decode.decoded(gst)
    stamps = viewer.stamps()
    pictures = [(t - sender.started, s) for (t, _), s in zip(times, stamps)]
    known = [s for t, s in pictures if s is not None and viewing.possible(t, s)]
    changes = viewing.changing_frames(check.bin, "demo", 30, (max(known) + 1) if known else 0)
    seen = viewing.Viewing(pictures, SECONDS, changes=changes)
    fps = seen.fps_after()
    gaps = seen.long_gaps()
    path = emulated.bottleneck(link.samples, link.profile)
    check.row.update(sent=figures.get("sent", status.get("framesSent")), decoded=len(times),
                     size=sizes[-1] if sizes else "", first=seen.first)
    drop_share = path["dropShare"] if path else None
    check.note("after 3 s: %s new pictures/s while the screen moves, %d gaps > 0.5 s (longest %s), tbf dropped %s "
               "(%s of packets), passed %s Mbit/s; sender: target %s bit/s, limitedBy %s, feedback PLI %s NACK %s RR %s" % (
                   "%.1f" % fps if fps is not None else "none", len(gaps),
                   "%.1f s" % max(gaps) if gaps else "-", path["dropped"] if path else "?",
                   "%.1f %%" % (100 * drop_share) if drop_share is not None else "?",
                   "%.2f" % path["mbit"] if path and path["mbit"] else "?", status.get("targetBitrate"),
                   status.get("limitedBy"), figures.get("pli"), figures.get("nack"), figures.get("rr")))
    check.expect(fps is not None and fps >= FPS_FLOOR,
                 "%s new pictures a second after 3 s while the screen moves, under %d" % (
                     "%.1f" % fps if fps is not None else "no", FPS_FLOOR))
    if gaps:
        where = ["%.1f–%.1f s" % (a, b) for a, b, moving in seen.gaps() if b > 3 and moving > 0.5]
        check.failures.append("%d gaps over 0.5 s after 3 s (longest %.1f s; %s)" % (len(gaps), max(gaps), ", ".join(where)))
    check.expect(drop_share is not None and drop_share < DROP_CEILING,
                 "the bottleneck dropped %s of the packets after 3 s, not under %d %%" % (
                     "%.1f %%" % (100 * drop_share) if drop_share is not None else "an unknown share", 100 * DROP_CEILING))


CHECKS = [
    ("gstreamer-constrained", check_gstreamer_constrained, "gst-launch-1.0 (rtpbin, srtpenc), tc (tbf), ip netns"),
]
