"""The HTML page Tools/soak writes: self-contained, plots as inline SVG,
python3 standard library only.

A line chart takes series {name: [(t, value), ...]} on a shared time axis
(seconds since the soak began) plus shaded bands (wedge episodes) and
vertical marks (injections, restarts); a lane chart puts named events on
one row per kind (the recovery ladder's steps)."""
import html
import math

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
WIDTH, HEIGHT = 960, 220
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 24, 32


def colour(index):
    return COLOURS[index % len(COLOURS)]


def escape(text):
    return html.escape(str(text), quote=True)


def nice_step(span, count=6):
    """A round tick spacing (1, 2 or 5 × 10^n) giving about `count` ticks over `span`."""
    if span <= 0:
        return 1
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5):
        if magnitude * factor >= raw:
            return magnitude * factor
    return magnitude * 10


def ticks(low, high):
    step = nice_step(high - low)
    value = (low // step) * step
    out = []
    while value <= high + 1e-9:
        if value >= low - 1e-9:
            out.append(value)
        value += step
    return out


def tick_label(value):
    return f"{value:g}" if abs(value) < 1e6 else f"{value / 1e6:g}M"


class Frame:
    """Maps data coordinates to the plot area of one chart."""

    def __init__(self, x_max, y_max, height=HEIGHT, left=LEFT):
        self.left = left
        self.x_max = max(x_max, 1)
        self.y_max = max(y_max, 1e-9)
        self.height = height

    def x(self, t):
        return self.left + (WIDTH - self.left - RIGHT) * t / self.x_max

    def y(self, v):
        return self.height - BOTTOM - (self.height - TOP - BOTTOM) * v / self.y_max


def time_axis(frame):
    parts = [f'<line x1="{frame.left}" y1="{frame.height - BOTTOM}" x2="{WIDTH - RIGHT}" y2="{frame.height - BOTTOM}" stroke="#444"/>']
    for t in ticks(0, frame.x_max):
        x = frame.x(t)
        parts.append(f'<line x1="{x:.1f}" y1="{frame.height - BOTTOM}" x2="{x:.1f}" y2="{frame.height - BOTTOM + 4}" stroke="#444"/>')
        parts.append(f'<text x="{x:.1f}" y="{frame.height - BOTTOM + 16}" text-anchor="middle">{t:g}</text>')
    parts.append(f'<text x="{WIDTH - RIGHT}" y="{frame.height - 2}" text-anchor="end">seconds</text>')
    return parts


def value_axis(frame, label):
    parts = [f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{frame.height - BOTTOM}" stroke="#444"/>']
    for v in ticks(0, frame.y_max):
        y = frame.y(v)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick_label(v)}</text>')
    parts.append(f'<text x="{LEFT}" y="{TOP - 8}" text-anchor="start">{escape(label)}</text>')
    return parts


def bands(frame, spans):
    """Shaded (start, end, colour, title) spans, such as a wedge from engaged to mended."""
    parts = []
    for start, end, fill, title in spans:
        x0, x1 = frame.x(start), frame.x(max(end, start + 0.5))
        parts.append(f'<rect x="{x0:.1f}" y="{TOP}" width="{x1 - x0:.1f}" height="{frame.height - TOP - BOTTOM}" '
                     f'fill="{fill}" fill-opacity="0.15"><title>{escape(title)}</title></rect>')
    return parts


def marks(frame, points):
    """Vertical dashed (t, colour, title) lines, such as an injection or a restart."""
    parts = []
    for t, stroke, title in points:
        x = frame.x(t)
        parts.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{frame.height - BOTTOM}" stroke="{stroke}" '
                     f'stroke-dasharray="4 3"><title>{escape(title)}</title></line>')
    return parts


def polyline(frame, points, stroke):
    """A series as a line, broken where samples are more than 3 s apart (a process was restarted)."""
    parts, run, last_t = [], [], None
    for t, v in points:
        if last_t is not None and t - last_t > 3 and run:
            parts.append(run)
            run = []
        run.append(f"{frame.x(t):.1f},{frame.y(v):.1f}")
        last_t = t
    if run:
        parts.append(run)
    return [f'<polyline fill="none" stroke="{stroke}" stroke-width="1.4" points="{" ".join(r)}"/>' for r in parts]


def legend(names):
    items = []
    x = LEFT
    for index, name in enumerate(names):
        items.append(f'<rect x="{x}" y="4" width="10" height="10" fill="{colour(index)}"/>'
                     f'<text x="{x + 14}" y="13">{escape(name)}</text>')
        x += 14 + 8 * len(name) + 16
    return items


def svg(height, parts):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
            f'font-family="sans-serif" font-size="11">' + "".join(parts) + "</svg>")


def line_chart(series, label, x_max, spans=(), points=(), y_max=None):
    """series: {name: [(t, value)]}, one colour each in order."""
    values = [v for data in series.values() for _, v in data]
    top = y_max if y_max is not None else (max(values) * 1.1 if values else 1)
    frame = Frame(x_max, top)
    parts = bands(frame, spans) + value_axis(frame, label) + time_axis(frame) + marks(frame, points)
    for index, (name, data) in enumerate(series.items()):
        parts += polyline(frame, data, colour(index))
    parts += legend(list(series.keys()))
    return svg(HEIGHT, parts)


def lane_chart(events, lanes, series_names, x_max):
    """events: [(t, lane, series index, title)] drawn as dots on one row per lane."""
    row = 18
    left = 8 + 6 * max([len(lane) for lane in lanes] + [8])
    height = TOP + BOTTOM + row * max(1, len(lanes))
    frame = Frame(x_max, 1, height, left)
    parts = time_axis(frame)
    for index, lane in enumerate(lanes):
        y = TOP + row * index + row / 2
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(lane)}</text>')
    for t, lane, series, title in events:
        y = TOP + row * lanes.index(lane) + row / 2 + (series - (len(series_names) - 1) / 2) * 3
        parts.append(f'<circle cx="{frame.x(t):.1f}" cy="{y:.1f}" r="3.2" fill="{colour(series)}">'
                     f'<title>{escape(title)}</title></circle>')
    parts += legend(series_names)
    return svg(height, parts)


def table(headers, rows):
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


STYLE = """
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1000px; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #f4f4f4; }
pre { background: #f8f8f8; padding: 8px; font-size: 12px; white-space: pre-wrap; }
.note { color: #555; font-size: 13px; }
"""


def page(title, sections):
    """sections: [(heading, html fragment)]"""
    body = "".join(f"<h2>{escape(h)}</h2>\n{fragment}\n" for h, fragment in sections)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>\n{body}</body></html>\n")
