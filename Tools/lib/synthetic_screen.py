#!/usr/bin/env python3
"""A port of Sources/Capture/SyntheticScreen.swift (with PageRenderer and
FrameStamp) that writes raw BGRx frames, so an outside encoder such as
ffmpeg can be fed the same screen that `screenshare --source synthetic`
captures, frame for frame (same page, same scroll, same dragged window,
same frame stamp in the top-left corner).

    synthetic_screen.py [--size 1920x1080] [--fps 30] [--scenario motion]
                        [--frames N | --seconds S] [--no-pace] > frames.bgr0

Frames go to stdout as `bgr0` (ffmpeg's name; libyuv calls it ARGB),
width*height*4 bytes each, paced at --fps unless --no-pace.
Python standard library only.
"""
import argparse
import os
import sys
import time

MASK64 = (1 << 64) - 1

GLYPH_WIDTH = 7
GLYPH_HEIGHT = 11
LINE_HEIGHT = 18
MARGIN = 40
SCROLL_PIXELS_PER_FRAME = 4
CYCLE = (4, 3, 3)  # scrolling, dragging, still (seconds)
STAMP_BLOCK = 16
STAMP_BITS = 32


class SplitMix:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


def pixel(colour):
    """0x00RRGGBB as the four bytes of a little-endian UInt32 (B, G, R, 0)."""
    return (colour & 0xFFFFFFFF).to_bytes(4, "little")


def make_glyph(rnd):
    rows = [0] * GLYPH_HEIGHT
    stem = 1 << (rnd.next() % 6)
    top = 2 + rnd.next() % 3
    for r in range(top, GLYPH_HEIGHT - 1):
        rows[r] |= stem
    for _ in range(3):
        r = top + rnd.next() % (GLYPH_HEIGHT - 1 - top)
        rows[r] |= rnd.next() & 0x3F
    return rows


def render_page(width, height, seed):
    """PageRenderer.render(): the tall page the screen scrolls through."""
    px = bytearray(b"\xff\xff\xff\x00" * (width * height))
    rnd = SplitMix(seed)
    glyphs = [make_glyph(rnd) for _ in range(64)]
    ink = pixel(0x00101010)

    def fill(x, y, w, h, colour):
        row = pixel(colour) * max(0, min(width, x + w) - x)
        for r in range(y, min(height, y + h)):
            o = (r * width + x) * 4
            px[o:o + len(row)] = row

    # Each glyph row as the list of x offsets that are inked.
    glyph_cols = [[[gx for gx in range(GLYPH_WIDTH - 1) if bits & (1 << gx)] for bits in g] for g in glyphs]

    y = MARGIN
    line = 0
    while y + LINE_HEIGHT < height - MARGIN:
        if line % 23 == 0:
            fill(MARGIN, y, width // 3, LINE_HEIGHT - 4, (0x00224488 + rnd.next() % 0x40) & 0xFFFFFFFF)
        elif line % 37 == 5:
            fill(width // 2, y, width // 4, LINE_HEIGHT * 6, rnd.next() & 0x00FFFFFF)
        else:
            x = MARGIN
            end = width - MARGIN - GLYPH_WIDTH
            while x < end:
                word_length = 2 + rnd.next() % 9
                for _ in range(word_length):
                    if not x < end:
                        continue  # Swift's `for … where x < end` skips the body, and its random draw
                    cols = glyph_cols[rnd.next() % 64]
                    for gy in range(GLYPH_HEIGHT):
                        base = ((y + gy) * width + x) * 4
                        for gx in cols[gy]:
                            o = base + gx * 4
                            px[o:o + 4] = ink
                    x += GLYPH_WIDTH
                x += GLYPH_WIDTH
        y += LINE_HEIGHT
        line += 1
    return px


def stamp_word(frame):
    number = frame & 0xFFFFFF
    check = (number ^ (number >> 8) ^ (number >> 16) ^ 0xA5) & 0xFF
    return (number << 8) | check


class Screen:
    def __init__(self, width, height, fps, scenario="motion", seed=1):
        self.width, self.height, self.fps, self.scenario = width, height, max(1, fps), scenario
        self.page_height = height * 3
        self.page = bytes(render_page(width, self.page_height, seed))
        self.window = (width * 3 // 10, height * 3 // 8)
        ww = self.window[0]
        self.win_title = pixel(0x00335C99) * ww
        self.win_body = pixel(0x00EEEEF2) * ww
        self.win_bottom = pixel(0x00202020) * ww
        self.border = pixel(0x00202020)

    def phase(self, frame):
        if self.scenario == "still":
            return "still"
        if self.scenario == "motion":
            return "scrolling"
        second = (frame // self.fps) % sum(CYCLE)
        if second < CYCLE[0]:
            return "scrolling"
        if second < CYCLE[0] + CYCLE[1]:
            return "dragging"
        return "still"

    def scroll_offset(self, frame):
        if self.scenario == "still":
            moving = 0
        elif self.scenario == "motion":
            moving = frame
        else:
            cycle = sum(CYCLE) * self.fps
            moving = (frame // cycle) * CYCLE[0] * self.fps + min(frame % cycle, CYCLE[0] * self.fps)
        return (moving * SCROLL_PIXELS_PER_FRAME) % (self.page_height - self.height)

    def window_origin(self, frame):
        travel = max(1, self.width - self.window[0])
        if self.scenario == "still":
            return None
        if self.scenario == "motion":
            x = (frame * 12) % (2 * travel)
            return (x if x < travel else 2 * travel - x, self.height // 3)
        if self.phase(frame) == "scrolling":
            return None
        cycle = sum(CYCLE) * self.fps
        start = CYCLE[0] * self.fps
        drag = CYCLE[1] * self.fps
        step = min(frame % cycle - start, drag)
        return (step * travel // drag, self.height // 4 + step % 40)

    def render(self, frame):
        w, h = self.width, self.height
        stride = w * 4
        off = self.scroll_offset(frame)
        out = bytearray(self.page[off * stride:(off + h) * stride])
        origin = self.window_origin(frame)
        if origin is not None:
            ox, oy = origin
            ww, wh = self.window
            x0, x1 = max(0, ox), min(w, ox + ww)
            n = (x1 - x0) * 4
            s = (x0 - ox) * 4
            for y in range(max(0, oy), min(h, oy + wh)):
                if y == oy + wh - 1:
                    src = self.win_bottom
                else:
                    src = self.win_title if y - oy < 28 else self.win_body
                o = y * stride
                out[o + x0 * 4:o + x1 * 4] = src[s:s + n]
                # left and right borders
                if 0 <= ox < w:
                    out[o + ox * 4:o + ox * 4 + 4] = self.border
                rx = ox + ww - 1
                if 0 <= rx < w:
                    out[o + rx * 4:o + rx * 4 + 4] = self.border
        word = stamp_word(frame & 0xFFFFFFFF)
        white, black = pixel(0x00FFFFFF) * STAMP_BLOCK, pixel(0) * STAMP_BLOCK
        blocks = min(STAMP_BITS, w // STAMP_BLOCK)
        row = b"".join(white if word & (1 << (STAMP_BITS - 1 - b)) else black for b in range(blocks))
        for y in range(STAMP_BLOCK):
            out[y * stride:y * stride + len(row)] = row
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--scenario", default="motion", choices=["demo", "motion", "still"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--frames", type=int)
    ap.add_argument("--seconds", type=float)
    ap.add_argument("--no-pace", action="store_true")
    a = ap.parse_args()
    width, height = (int(v) for v in a.size.lower().split("x"))
    screen = Screen(width, height, a.fps, a.scenario, a.seed)
    limit = a.frames if a.frames is not None else (int(a.seconds * a.fps) if a.seconds else None)
    out = sys.stdout.buffer
    start = time.monotonic()
    frame = 0
    try:
        while limit is None or frame < limit:
            if not a.no_pace:
                due = start + frame / a.fps
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            out.write(screen.render(frame))
            frame += 1
        out.flush()
    except (BrokenPipeError, KeyboardInterrupt):
        try:
            sys.stdout = None
            os.close(1)
        except OSError:
            pass


if __name__ == "__main__":
    main()
