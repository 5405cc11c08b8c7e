"""What a viewer saw, from the time and frame stamp of every decoded picture:
when the first one came, how many new pictures a second, and the freezes.

A picture counts when its stamp reads and is later than the last one that
did: a still-frame repeat or a keyframe of the same frame shows nothing
new, and a picture broken by loss (which the decoder conceals and shows)
rarely keeps its stamp readable. Time is in seconds from the sender's start.

While the source screen is still (the `demo` scenario's pauses) the viewer
waits for nothing: that time is taken out of every gap. Which source frames
change comes from the synthetic screen itself (`screenshare frames`, at a
small size, each frame's rows below the stamp compared with the one before);
the still stretches are placed on the viewer's clock by the most punctual
picture (the smallest arrival time minus source time).

Freezes, two ways, over the gaps between new pictures (and from the last one
to the end of the row, which a viewer also sits through):
- WebRTC's (VideoQualityObserver): a gap of at least max(3 × mean,
  mean + 150 ms), the mean over the last 30 gaps including this one, once
  there are 5; `frozen s` is their total length;
- gaps longer than 500 ms in the part of the row after its first 3 s
  (a first picture later than that is such a gap too).
"""
import subprocess

import benchlib

AFTER = 3.0
LONG_GAP = 0.5
WINDOW, MIN_SAMPLES, MIN_INCREASE_MS = 30, 5, 150
PROBE_SIZE = (480, 270)
STAMP_ROWS = 16


def possible(t, stamp, fps=30):
    """Whether a picture shown `t` seconds after the sender's start can carry frame `stamp`: the
    source numbers its frames from that start, and no picture shows a frame made over a second
    later. A broken picture's stamp area can pass the stamp's 8-bit check by chance (1 in 256):
    read as frame 16777072 at 2.4 s, it made every later picture look old, and a row that decoded
    442 pictures counted 0.1 fps."""
    return stamp <= (t + 1) * fps


def changing_frames(bins, scenario, fps, count):
    """For frames 0..count-1 of the synthetic screen: whether each differs from the one before."""
    if scenario == "motion":
        return [True] * count   # scrolls and drags without pause
    width, height = PROBE_SIZE
    frame_bytes = width * height * 4
    argv = benchlib.frames_argv(bins, width, height, fps, scenario) + ["--count", str(count)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    changes, previous = [], None
    while True:
        data = proc.stdout.read(frame_bytes)
        if len(data) < frame_bytes:
            break
        body = data[STAMP_ROWS * width * 4:]
        changes.append(previous is None or body != previous)
        previous = body
    proc.wait()
    return changes


def still_spans(changes, fps):
    """Source-time stretches [start, end) in which the screen does not change."""
    spans, start = [], None
    for n, changed in enumerate(changes):
        if not changed and start is None:
            start = n
        elif changed and start is not None:
            spans.append((start / fps, n / fps))
            start = None
    if start is not None:
        spans.append((start / fps, len(changes) / fps))
    return spans


class Viewing:
    def __init__(self, pictures, end, fps=30, changes=None):
        """`pictures`: [(time, stamp or None)] in decoding order; `end`: the row's length."""
        self.end, self.fps = end, fps
        new, impossible = [], 0
        for t, stamp in pictures:
            if stamp is None or (new and stamp <= new[-1][1]):
                continue
            if not possible(t, stamp, fps):
                impossible += 1
                continue
            new.append((t, stamp))
        self.new = new
        self.unreadable = sum(1 for _, stamp in pictures if stamp is None) + impossible
        self.first = new[0][0] if new else None
        punctual = [t - s / fps for t, s in new]
        offset = min(punctual) if punctual else 0.0
        self.still = [(offset + a, offset + b) for a, b in still_spans(changes or [], fps)]

    def still_within(self, a, b):
        return sum(max(0.0, min(b, y) - max(a, x)) for x, y in self.still)

    def moving(self, a, b):
        """How long the screen was changing between a and b (viewer's clock)."""
        return max(0.0, (b - a) - self.still_within(a, b))

    def fps_after(self, after=AFTER):
        if self.end <= after:
            return None
        shown = sum(1 for t, _ in self.new if t >= after)
        span = self.moving(after, self.end)
        return shown / span if span > 0 else None

    def gaps(self):
        """(start, end, moving length) of each gap from the first picture to the end of the row."""
        times = [t for t, _ in self.new] + [self.end]
        return [(a, b, self.moving(a, b)) for a, b in zip(times, times[1:]) if b > a]

    def webrtc_freezes(self):
        """(count, total seconds) by WebRTC's rule; (None, None) with fewer than 5 gaps to judge by."""
        gaps = self.gaps()
        if len(gaps) < MIN_SAMPLES:
            return None, None
        recent, count, total = [], 0, 0.0
        for _, _, length in gaps:
            ms = int(length * 1000)
            recent = (recent + [ms])[-WINDOW:]
            if len(recent) >= MIN_SAMPLES:
                mean = sum(recent) // len(recent)
                if ms >= max(3 * mean, mean + MIN_INCREASE_MS):
                    count += 1
                    total += length
        return count, total

    def long_gaps(self, after=AFTER, longer=LONG_GAP, until=None):
        """Lengths of the gaps over `longer` seconds, counting only their part from `after` to `until`."""
        until = self.end if until is None else until
        if self.first is None:
            span = self.moving(after, until)
            return [span] if span > longer else []
        spans = [(after, self.first)] if self.first > after else []
        spans += [(max(a, after), min(b, until)) for a, b, _ in self.gaps()]
        lengths = [self.moving(a, b) for a, b in spans if b > a]
        return [g for g in lengths if g > longer]

    def longest_gap(self, after=AFTER, until=None):
        gaps = self.long_gaps(after, 0.0, until)
        return max(gaps) if gaps else None
