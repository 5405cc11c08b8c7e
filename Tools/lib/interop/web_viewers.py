"""One share to a Janus streaming mount with four Chromium viewers: all
decode, and one viewer's wedged decoder is restored while the others go on."""
from interop.check import variant
from interop.web import RESTORED_FOR, RESTORED_FPS, run_web

VIEWERS = 4
# The others' decoding while the first is wedged and restored: at least this
# rate, and no second-long window without a new frame.
OTHERS_FPS = 15


def decoded_by(stats, viewer):
    """(time, frames decoded) for one page, its receivers' counts run on from each other."""
    series, last, total = [], {}, 0
    for t, v in stats:
        if v.get("viewer") != viewer:
            continue
        gen, n = v.get("gen", 0), v.get("framesDecoded") or 0
        total += max(0, n - last.get(gen, 0))
        last[gen] = n
        series.append((t, total))
    return series


def check_viewers(check):
    out = run_web(check, "balanced", 60, wedge="once", viewers=VIEWERS, size="1280x720")
    if not out:
        return
    sender, page, client, figures, status, stats = out
    events = [(t, v) for t, v in page.of("event") if v.get("viewer") == "v1"]
    engaged = next((t for t, v in events if v.get("wedge") == "engaged"), None)
    restored_at, restored = next(((t, v) for t, v in events if v.get("restoredAfter") is not None), (None, None))
    reasons = [event.get("reason") for _, d, event in client.relayed if d == "to page"]
    check.note("transceivers %s" % reasons)
    last = next((v for _, v in reversed(stats) if v.get("viewer") == "v2"), {})
    check.row.update(size="%sx%s" % (last.get("frameWidth"), last.get("frameHeight")))
    for n in range(1, VIEWERS + 1):
        series = decoded_by(stats, "v%d" % n)
        check.expect(len(series) >= 3 and series[-1][1] > 0, "v%d decoded nothing: %s" % (n, series[-4:]))
    if not check.expect(engaged is not None, "v1 never wedged its decoder"):
        return
    if not check.expect(restored is not None, "v1: no frame decoded after the wedge within 30 s"):
        return
    check.row["recovery"] = restored["restoredAfter"]
    check.expect(restored["restoredAfter"] <= 30, "v1 restored %.1f s after the wedge, over 30 s" % restored["restoredAfter"])
    mine = [(t, n) for t, n in decoded_by(stats, "v1") if t >= restored_at]
    rate = (mine[-1][1] - mine[0][1]) / (mine[-1][0] - mine[0][0]) if len(mine) >= 2 and mine[-1][0] > mine[0][0] else 0
    check.expect(mine and mine[-1][0] - mine[0][0] >= RESTORED_FOR - 0.5 and rate >= RESTORED_FPS,
                 "v1: not %d s at %d fps after the restore (%.1f fps)" % (RESTORED_FOR, RESTORED_FPS, rate))
    check.expect(any(r in ("rebuild", "newTransceiver") for r in reasons), "no rebuild transceiver event: %s" % reasons)
    others = []
    for n in range(2, VIEWERS + 1):
        during = [(t, f) for t, f in decoded_by(stats, "v%d" % n) if engaged <= t <= restored_at + RESTORED_FOR]
        if not check.expect(len(during) >= 3, "v%d: no figures while v1 was wedged" % n):
            continue
        fps = (during[-1][1] - during[0][1]) / (during[-1][0] - during[0][0])
        still = max((b[0] - a[0] for a, b in zip(during, during[1:]) if b[1] == a[1]), default=0)
        others.append("v%d %.0f fps" % (n, fps))
        check.expect(max(v.get("gen", 0) for t, v in stats if v.get("viewer") == "v%d" % n) == 1,
                     "v%d subscribed again: the new stream was for v1 alone" % n)
        check.expect(fps >= OTHERS_FPS, "v%d decoded %.1f fps while v1 was wedged and restored, under %d" % (n, fps, OTHERS_FPS))
        check.expect(still == 0, "v%d decoded nothing for %.1f s while v1 was wedged and restored" % (n, still))
    check.note("while v1 was wedged and restored: " + ", ".join(others))


check_web_viewers = variant(check_viewers, "Four Chromium viewers through one Janus mount at 1280×720 all decode; the first one's "
                            "decoder wedged 5 s in is restored within 30 s while the other three go on at 15 fps or more.")

CHECKS = [
    ("web-four-viewers", check_web_viewers, "janus, chromium (RTCRtpScriptTransform), python3"),
]
