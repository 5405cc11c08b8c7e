"""What the checks ask of a running `screenshare share --json`: its
diagnostics, its status lines, and a clean stop."""
import re
import time


def diagnostics(sender, timeout=5):
    """Asks a running sender for diagnostics; returns the parsed figures."""
    before = len(sender.events("diagnostics"))
    sender.send("diagnostics")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        d = sender.events("diagnostics")
        if len(d) > before:
            return parse_diagnostics(d[-1][1]["text"])
        time.sleep(0.05)
    return {}


def parse_diagnostics(text):
    figures = {"text": text}
    patterns = {
        "pli": r"feedback: PLI (\d+)", "fir": r"FIR (\d+), NACK", "nack": r"NACK (\d+) \(naming", "named": r"\(naming (\d+) packets", "rr": r"RR (\d+) \(",
        "remb": r"REMB (\d+),", "transportcc": r"transport-cc (\d+)", "unauthenticated": r"unauthenticated (\d+)",
        "retransmitted": r"retransmitted (\d+)", "packets": r"packets: sent (\d+)",
        "made": r"keyframes: made (\d+)", "asked": r"keyframes: made \d+, asked (\d+)",
        "answered": r"answered (\d+)", "coalesced": r"coalesced (\d+)", "transceivers": r"transceivers (\d+)",
        "sent": r"frames: in \d+, superseded \d+, encoded \d+, sent (\d+)",
        "level": r"level (\d+(?:\.\d+)?)",
    }
    for key, pattern in patterns.items():
        m = re.search(pattern, text)
        if m:
            figures[key] = float(m.group(1)) if "." in m.group(1) else int(m.group(1))
    m = re.search(r"encoder: x264 \S+ (\d+)×(\d+) at (\d+) fps", text)
    if m:
        figures["encoder_size"] = (int(m.group(1)), int(m.group(2)))
        figures["encoder_fps"] = int(m.group(3))
    return figures


def last_status(sender):
    s = sender.events("status")
    return s[-1][1] if s else {}


def sent_at(sender, t):
    """framesSent at monotonic time t, from the status lines around it."""
    points = [(sender.started, 0)] + [(t, s.get("framesSent", 0)) for t, s in sender.events("status")]
    for (t0, v0), (t1, v1) in zip(points, points[1:]):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / max(t1 - t0, 1e-6)
    return points[-1][1] if t > points[-1][0] else 0


def stop_sender(check, sender):
    """Diagnostics, then `stop` on stdin; returns (figures, last status)."""
    figures = diagnostics(sender)
    status = last_status(sender)
    sender.send("stop")
    code = sender.stop(10)
    check.expect(code == 0, "screenshare exited with %s" % code)
    if not figures:
        check.failures.append("screenshare printed no diagnostics")
    return figures, status


def requests_answered(check, figures, kind):
    """Every keyframe request became an IDR (or shared one with a request just before it)."""
    asked, answered, coalesced = figures.get("asked", 0), figures.get("answered", 0), figures.get("coalesced", 0)
    # One request may still be waiting for its frame when the share stops.
    check.expect(asked - answered - coalesced <= 1,
                 "%s: %d keyframe requests, %d answered, %d coalesced" % (kind, asked, answered, coalesced))
    check.note("%s %d → asked %d, keyframes %d (answered %d, coalesced %d)" % (
        kind, figures.get(kind.lower(), 0), asked, figures.get("made", 0), answered, coalesced))
