"""Every check in the order they run: (name, function, what it needs installed)."""
from interop import ffprobe, gstreamer, gstreamer_constrained, gstreamer_feedback, gstreamer_rtx, web, web_viewers, web_wedge

CHECKS = (gstreamer.CHECKS + gstreamer_feedback.CHECKS + gstreamer_rtx.CHECKS + gstreamer_constrained.CHECKS + ffprobe.CHECKS + web.CHECKS
          + web_wedge.CHECKS + web_viewers.CHECKS)

NAMES = [name for name, _, _ in CHECKS]

