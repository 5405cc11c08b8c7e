"""Chromium's decoder wedged on purpose by the viewer page: the sender's
recovery (rebuild, share again) must bring the picture back."""
from interop.check import variant
from interop.web import run_web


def check_wedge(check, mode):
    out = run_web(check, "balanced", 60, wedge=mode)
    if not out:
        return
    sender, page, client, figures, status, stats = out
    events = [v for _, v in page.of("event")]
    engaged = next((v for v in events if v.get("wedge") == "engaged"), None)
    restored = next((v for v in events if v.get("restoredAfter") is not None), None)
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
    if restored is not None:
        check.row["recovery"] = restored["restoredAfter"]
        check.expect(restored["restoredAfter"] <= 30, "restored %.1f s after the wedge, over 30 s" % restored["restoredAfter"])
        check.expect(False in reports, "the page's cleared report never reached the sender")
    elif mode == "sticky" and gave_up:
        check.note("sender said it could not restore")
    else:
        check.failures.append("not restored within 30 s, and the sender did not say it could not")
    if mode == "once":
        check.expect("rebuild" in reasons or "newTransceiver" in reasons, "no rebuild transceiver event: %s" % reasons)
    else:
        check.expect("shareAgain" in reasons or gave_up, "no share-again: %s" % reasons)


check_web_wedge = variant(check_wedge, "Chromium's decoder wedged 5 s in (script transform swallows frames): the report → rebuild "
                          "→ re-subscribe restores it in 30 s.", mode="once")
check_web_wedge_sticky = variant(check_wedge, "As web-wedge, but the first new receiver is wedged too: the share-again restores "
                                 "it in 30 s (or the sender says it cannot).", mode="sticky")


CHECKS = [
    ("web-wedge", check_web_wedge, "janus, chromium (RTCRtpScriptTransform), python3"),
    ("web-wedge-sticky", check_web_wedge_sticky, "janus, chromium (RTCRtpScriptTransform), python3"),
]
