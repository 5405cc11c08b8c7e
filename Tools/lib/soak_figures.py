"""What Tools/soak judges (docs/behaviour.md §5.6, §11): whether an episode's view was restored in
time, and how much a sender's memory grew. Pure functions of the samples, so that the rules read
in one place."""
import statistics

# docs/behaviour.md §5.6: restored within 30 s of the report (of the fault, where no report
# starts the episode), or said.
GATE = 30.0
# "Restored": this many seconds of continuous decoding at RESTORED_FPS or more.
RESTORED_FOR = 3
RESTORED_FPS = 20.0
# docs/behaviour.md §11: no growth beyond 1 MiB an hour, after the first minute.
RSS_LIMIT_PER_HOUR = 1.0
RSS_SETTLE = 60.0
# A sender is judged on memory only when it ran this long after its first minute: over a
# shorter span, the steps between encoder sizes (a few MiB, up and down) read as a slope.
RSS_MIN_SPAN = 600.0
# The level of a window: the median of its samples, so that what comes and goes within it is
# not read as growth, while memory that stays is: an encoder of a larger size for a while, and
# the dips when one is freed and its pages given back before the next has its own.


def steady_from(fps, after, seconds=RESTORED_FOR, minimum=RESTORED_FPS):
    """When `seconds` of decoding at `minimum` fps or more began after `after`, from
    once-a-second figures [(t, fps)] (each is the second before it); None if not yet."""
    figures = [(t, v) for t, v in fps if t >= after + 1]
    for i in range(len(figures) - seconds + 1):
        if all(v >= minimum for _, v in figures[i:i + seconds]):
            return figures[i][0] - 1
    return None


def level(values):
    return statistics.median(values)


def rss_growth(samples, started):
    """A process's memory after its first minute, from [(t, MiB)]: a dict with the levels of its
    first and last windows, their growth per hour, the least-squares slope per hour (for the
    record), the span and whether it is long enough to judge; None when too few samples."""
    settled = [(t, v) for t, v in samples if t >= started + RSS_SETTLE]
    if len(settled) < 10:
        return None
    span = settled[-1][0] - settled[0][0]
    window = max(60.0, min(600.0, span / 4))
    first = [v for t, v in settled if t <= settled[0][0] + window]
    last = [v for t, v in settled if t >= settled[-1][0] - window]
    hours = max(span - window, 1.0) / 3600
    times, values = zip(*settled)
    slope = statistics.linear_regression(times, values).slope * 3600 if len(set(times)) > 1 else 0.0
    return {
        "first": level(first), "last": level(last), "per_hour": (level(last) - level(first)) / hours,
        "slope_per_hour": slope, "span": span, "judged": span >= RSS_MIN_SPAN,
        "min": min(values), "max": max(values),
    }
