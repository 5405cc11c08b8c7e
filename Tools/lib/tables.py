"""Tables of figures for a terminal: Markdown (the benchmarks, pasted into
docs) or plain columns (the interop checks)."""


def fmt(value, spec="", missing="n/a"):
    if value is None:
        return missing
    return format(value, spec)


def _cells_and_widths(headers, rows):
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    return cells, [max(len(r[i]) for r in cells) for i in range(len(headers))]


def markdown(headers, rows):
    """A Markdown table, columns padded so it reads in a terminal too."""
    cells, widths = _cells_and_widths(headers, rows)
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def plain(headers, rows):
    """Columns two spaces apart, a line of dashes under the header."""
    cells, widths = _cells_and_widths(headers, rows)
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
