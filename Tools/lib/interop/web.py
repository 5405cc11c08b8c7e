"""Chromium (headless) watching the share through Janus's streaming plugin:
what it decodes, at what size, and whether its PLIs reach the sender."""
import os
import time
import urllib.parse

from interop.call_client import StandInCallClient
from interop.check import variant
from interop.janus import start_janus
from interop.page_server import PageServer
from interop.sender import stop_sender

CHROMIUM = "/usr/lib/chromium/chromium"


def start_chromium(check, query):
    viewer = query.get("viewer", "v1")
    profile = os.path.join(check.work, "chromium-profile-" + viewer)
    os.makedirs(profile, exist_ok=True)
    url = "http://127.0.0.1:8000/viewer.html?" + urllib.parse.urlencode(query)
    return check.start("chromium" if viewer == "v1" else "chromium-" + viewer, [
        CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
        "--autoplay-policy=no-user-gesture-required", "--allow-loopback-in-peer-connection",
        "--disable-features=WebRtcHideLocalIpsWithMdns", "--user-data-dir=" + profile, url])


# "Restored" (docs/behaviour.md §5.6): this many seconds of continuous decoding at RESTORED_FPS or more.
RESTORED_FOR = 3
RESTORED_FPS = 20


def run_web(check, policy, seconds, wedge=None, viewers=1, size="1920x1080"):
    """Janus fed by screenshare, `viewers` Chromium pages watching (the first one wedged, if `wedge`);
    returns (sender, page, client, figures, status, stats), stats of every page."""
    check.row.update(peer="Chromium via Janus" if viewers == 1 else "%d Chromium via Janus" % viewers, policy=policy)
    port, rtcpport = 5004, 5005
    janus = start_janus(check, port, rtcpport)
    if janus is None:
        return None
    page = PageServer(check.work)
    sender = check.sender(["--size", size, "--scenario", "motion", "--policy", policy,
                           "--to", "127.0.0.1:%d" % port, "--rtcp-to", "127.0.0.1:%d" % rtcpport,
                           "--accept-plain-rtcp", "--bind", "127.0.0.1:5008", "--log-level", "debug"])
    client = StandInCallClient(sender, page)
    # Janus learns where to send its feedback from the sender's first report.
    time.sleep(1.5)
    pages = []
    for n in range(1, viewers + 1):
        query = {"id": 1, "viewer": "v%d" % n}
        if wedge and n == 1:
            query.update(wedge=wedge, wedgeAfter=5)
        pages.append(start_chromium(check, query))
    page_started = time.monotonic()
    deadline = page_started + seconds
    while time.monotonic() < deadline:
        if not all(chromium.alive() for chromium in pages):
            check.failures.append("Chromium exited (see chromium*.log)")
            break
        if wedge and page.of("event") and any(v.get("restoredAfter") is not None for _, v in page.of("event")):
            time.sleep(RESTORED_FOR + 1)  # the page's stats once a second: RESTORED_FOR seconds of them
            break
        time.sleep(0.25)
    figures, status = stop_sender(check, sender)
    client.stop()
    for chromium in pages:
        chromium.stop()
    janus.stop()
    page.close()
    stats = [(t, v) for t, v in page.of("stats") if v]
    check.row["sent"] = figures.get("sent", status.get("framesSent"))
    first = [t for t, v in stats if v.get("framesDecoded", 0) > 0]
    check.row["first"] = (first[0] - page_started) if first else None
    # Every receiver's decoded frames, on every page (a new receiver counts from zero).
    per_receiver = {}
    for _, v in stats:
        key = (v.get("viewer"), v.get("gen", 0))
        per_receiver[key] = max(per_receiver.get(key, 0), v.get("framesDecoded") or 0)
    check.row["decoded"] = sum(per_receiver.values())
    logs = page.of("log")
    if logs:
        check.note("page: " + str(logs[-1][1].get("msg", ""))[:80])
    return sender, page, client, figures, status, stats


def check_web(check, policy):
    out = run_web(check, policy, float(os.environ.get("INTEROP_WEB_SECONDS", 14)))
    if not out:
        return
    sender, page, client, figures, status, stats = out
    decoded = [v.get("framesDecoded", 0) for _, v in stats]
    if not check.expect(len(decoded) >= 3 and decoded[-1] > decoded[len(decoded) // 2] > 0,
                        "framesDecoded did not rise: %s" % decoded[-8:]):
        return
    last = stats[-1][1]
    width, height = last.get("frameWidth", 0), last.get("frameHeight", 0)
    check.row.update(size="%dx%d" % (width, height))
    if policy == "motion":
        mbs = ((width + 15) // 16) * ((height + 15) // 16)
        check.expect(0 < mbs <= 3600, "Motion at %dx%d is %d macroblocks, over 3600" % (width, height, mbs))
    elif (width, height) != (1920, 1080):
        # Balanced may send smaller while the sender says the link or the CPU
        # is short (docs/behaviour.md §3.8); then what Chromium decodes must be what it sends.
        status = [s for t, s in sender.events("status") if t <= stats[-1][0]]
        said = status[-1] if status else {}
        shrunk = (policy == "balanced" and said.get("limitedBy") in ("bandwidth", "cpu")
                  and (said.get("width"), said.get("height")) == (width, height))
        check.expect(shrunk, "%s at %dx%d, not 1920x1080 (the sender said %sx%s, limited by %s)" % (
            policy, width, height, said.get("width"), said.get("height"), said.get("limitedBy")))
        if shrunk:
            check.note("Balanced shrunk to %dx%d: the sender said %s is the limit (target %s bit/s)" % (
                width, height, said.get("limitedBy"), said.get("targetBitrate")))
    impl = last.get("decoderImplementation")
    check.expect(bool(impl), "no decoderImplementation reported")
    check.expect(figures.get("pli", 0) > 0, "no PLI from Chromium (via Janus) reached the sender")
    check.expect(figures.get("made", 0) > 1, "only %d keyframe made: the PLI brought none" % figures.get("made", 0))
    check.note("decoder %s, %.0f fps; Chromium PLIs %s; sender PLI %d, REMB %d, keyframes %d" % (
        impl, last.get("framesPerSecond") or 0, last.get("pliCount"), figures.get("pli", 0), figures.get("remb", 0),
        figures.get("made", 0)))


check_web_balanced = variant(check_web, "Chromium through Janus decodes Balanced at 1920×1080; its PLI (via Janus) makes a keyframe.",
                             policy="balanced")
check_web_detail = variant(check_web, "Chromium through Janus decodes Detail at 1920×1080; its PLI (via Janus) makes a keyframe.",
                           policy="detail")
check_web_motion = variant(check_web, "Chromium through Janus decodes Motion within 3600 macroblocks; its PLI makes a keyframe.",
                           policy="motion")


CHECKS = [
    ("web-balanced", check_web_balanced, "janus, chromium, python3"),
    ("web-detail", check_web_detail, "janus, chromium, python3"),
    ("web-motion", check_web_motion, "janus, chromium, python3"),
]
