"""Chromium's decoder wedged on purpose by the viewer page: the sender's
recovery (rebuild, share again) must bring the picture back."""
from interop.check import variant
from interop.web import RESTORED_FOR, RESTORED_FPS, run_web


def decoding_after(stats, gen, since):
    """Frames a second receiver `gen` decoded from `since` on, over the seconds the stats span; None under one."""
    after = [(t, v.get("framesDecoded") or 0) for t, v in stats if v.get("gen") == gen and t >= since]
    if len(after) < 2 or after[-1][0] - after[0][0] < RESTORED_FOR - 0.5:
        return None
    return (after[-1][1] - after[0][1]) / (after[-1][0] - after[0][0])


def check_wedge(check, mode):
    out = run_web(check, "balanced", 60, wedge=mode)
    if not out:
        return
    sender, page, client, figures, status, stats = out
    events = [v for _, v in page.of("event")]
    engaged = next((v for v in events if v.get("wedge") == "engaged"), None)
    restored_at, restored = next(((t, v) for t, v in page.of("event") if v.get("restoredAfter") is not None), (None, None))
    last = stats[-1][1] if stats else {}
    check.row.update(size="%sx%s" % (last.get("frameWidth"), last.get("frameHeight")))
    reasons = [event.get("reason") for _, d, event in client.relayed if d == "to page"]
    reports = [event.get("screenStalled") for _, d, event in client.relayed if d == "to sender"]
    gave_up = [e for _, e in sender.events("notice") if e.get("kind") == "couldNotRestore"]
    check.note("reports %s; transceivers %s; receivers %d" % (reports, reasons, max((v.get("gen", 0) for _, v in stats), default=0)))
    # Janus's PLIs name the SSRC it last saw from the source: after a new
    # transceiver they must still reach the sender (it drops a PLI for another SSRC).
    first_new = next((t for t, _ in sender.events("transceiver")), None)
    plis_after = [t for t, line in sender.output()
                  if first_new is not None and t > first_new and "keyframe asked for (PLI)" in line]
    check.note("sender PLIs after the first new SSRC: %d" % len(plis_after))
    if not check.expect(engaged is not None, "the page never wedged its decoder"):
        return
    check.expect(True in reports, "no screenStalled report reached the sender")
    # Nothing here limits the ladder (a fresh share: no rebuild or share-again spent), so the
    # view must come back: the sender saying it could not is a failure too.
    if gave_up:
        check.note("sender said it could not restore")
    if not check.expect(restored is not None, "no frame decoded after the wedge within 30 s"):
        return
    check.row["recovery"] = restored["restoredAfter"]
    check.expect(restored["restoredAfter"] <= 30, "restored %.1f s after the wedge, over 30 s" % restored["restoredAfter"])
    rate = decoding_after(stats, restored.get("gen"), restored_at)
    check.note("after the restore: %s fps" % ("%.1f" % rate if rate is not None else "-"))
    check.expect(rate is not None and rate >= RESTORED_FPS,
                 "not %d s of decoding at %d fps or more after the restore (%s)" % (RESTORED_FOR, RESTORED_FPS, rate))
    check.expect(False in reports, "the page's cleared report never reached the sender")
    if mode == "once":
        check.expect("rebuild" in reasons or "newTransceiver" in reasons, "no rebuild transceiver event: %s" % reasons)
    else:
        check.expect("shareAgain" in reasons, "no share-again: %s" % reasons)


check_web_wedge = variant(check_wedge, "Chromium's decoder wedged 5 s in (script transform swallows frames): the report → rebuild "
                          "→ re-subscribe restores it in 30 s.", mode="once")
check_web_wedge_sticky = variant(check_wedge, "As web-wedge, but the first new receiver is wedged too: the share-again restores "
                                 "it in 30 s, then 3 s of decoding at 20 fps or more.", mode="sticky")


CHECKS = [
    ("web-wedge", check_web_wedge, "janus, chromium (RTCRtpScriptTransform), python3"),
    ("web-wedge-sticky", check_web_wedge_sticky, "janus, chromium (RTCRtpScriptTransform), python3"),
]
