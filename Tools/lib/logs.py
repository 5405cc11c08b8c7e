"""Where a run's progress and its processes' output go."""
import sys
import tempfile


def log(message):
    print(message, file=sys.stderr, flush=True)


def work_dir(prefix):
    """A fresh folder for one run's keys and its processes' logs."""
    return tempfile.mkdtemp(prefix=prefix)
