/* x11-animator — draws on an X display's root window for Tools/bench --x11.
 *
 *   x11-animator :N [--fps 30] [--still | --changes | --frames]
 *
 * Moving (the default): FPS times a second, a page of "text" (dark word-shaped
 * rectangles on white lines) scrolled up by 4 pixels, and a 480x320 "window"
 * sliding left and right over it — the whole screen changes every frame, as in
 * `screenshare --source synthetic --scenario motion`. Each frame waits for the
 * server to finish the last (a round trip), so a busy server slows the
 * animation instead of queueing frames.
 * --still: draws one such frame, then sleeps until killed.
 * --changes: a still screen that changes whole now and then, for latency:
 * two such pages are drawn once into pixmaps, then every 300-500 ms (at
 * random, so the changes fall at every phase of a 30 Hz capture) the other
 * page is copied onto the root in one request. Each change prints a line
 *   change N T0 T1
 * T0 just before the request is sent, T1 once the server has done it (after
 * a round trip), both CLOCK_REALTIME in seconds, which is the clock of the
 * kernel's receive timestamps (SO_TIMESTAMPNS).
 * --frames: raw bgr0 frames of the screen's size read from stdin
 * (`screenshare frames`, which stamps each with its number), FPS times a
 * second; each is put into a pixmap and then copied onto the root in one
 * request, so a capture sees a whole frame and its stamp names it, and a
 * receiver's --quality can score what a sender captured from a real X server.
 *
 * Build: gcc -O2 -o x11-animator x11-animator.c -lxcb
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xcb/xcb.h>

enum { LINE = 22, WORDS_MAX = 16, SCROLL = 4, MAX_RECTS = 4096 };

static uint32_t hash(uint32_t x) {
    x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16;
    return x;
}

static void colour(xcb_connection_t *c, xcb_gcontext_t gc, uint32_t rgb) {
    xcb_change_gc(c, gc, XCB_GC_FOREGROUND, &rgb);
}

static void draw(xcb_connection_t *c, xcb_drawable_t root, xcb_gcontext_t gc, int w, int h, long frame) {
    static xcb_rectangle_t rects[MAX_RECTS];
    long scroll = frame * SCROLL;
    xcb_rectangle_t page = {0, 0, (uint16_t)w, (uint16_t)h};
    colour(c, gc, 0xfafafa);
    xcb_poly_fill_rectangle(c, root, gc, 1, &page);

    /* Words of the lines in view; line n sits at n*LINE - scroll. */
    int n = 0;
    for (long line = scroll / LINE; line * LINE - scroll < h && n < MAX_RECTS - WORDS_MAX; line++) {
        uint32_t r = hash((uint32_t)line);
        if (r % 7 == 0) continue; /* a blank line between paragraphs */
        int x = 40, words = 4 + (int)(r % WORDS_MAX);
        for (int i = 0; i < words && x < w - 40; i++) {
            int len = 18 + (int)(hash(r + (uint32_t)i) % 90);
            rects[n++] = (xcb_rectangle_t){(int16_t)x, (int16_t)(line * LINE - scroll + 5), (uint16_t)len, 12};
            x += len + 9;
        }
    }
    colour(c, gc, 0x303030);
    xcb_poly_fill_rectangle(c, root, gc, (uint32_t)n, rects);

    /* A window dragged back and forth across the middle. */
    int span = w - 480, pos = (int)((frame * 12) % (2 * span));
    int wx = pos < span ? pos : 2 * span - pos, wy = h / 2 - 160;
    xcb_rectangle_t body = {(int16_t)wx, (int16_t)wy, 480, 320}, bar = {(int16_t)wx, (int16_t)wy, 480, 28};
    colour(c, gc, 0x3366aa);
    xcb_poly_fill_rectangle(c, root, gc, 1, &body);
    colour(c, gc, 0x1a2a4a);
    xcb_poly_fill_rectangle(c, root, gc, 1, &bar);
}

static double clock_seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double now(void) { return clock_seconds(CLOCK_MONOTONIC); }

static void round_trip(xcb_connection_t *c) {
    free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
}

/* Sleeps until the next frame is due, `next` moved on by a frame period. */
static void pace(double *next, int fps) {
    *next += 1.0 / fps;
    double wait = *next - now();
    if (wait > 0) {
        usleep((useconds_t)(wait * 1e6));
    } else if (wait < -1.0) {
        *next = now(); /* far behind: start again from here rather than race */
    }
}

/* Two pages in pixmaps, copied whole onto the root at random moments. */
static int changes(xcb_connection_t *c, xcb_screen_t *screen, xcb_gcontext_t gc) {
    int w = screen->width_in_pixels, h = screen->height_in_pixels;
    xcb_pixmap_t pages[2];
    for (int i = 0; i < 2; i++) {
        pages[i] = xcb_generate_id(c);
        xcb_create_pixmap(c, screen->root_depth, pages[i], screen->root, (uint16_t)w, (uint16_t)h);
        /* Pages far apart in the scroll, the window at either side. */
        draw(c, pages[i], gc, w, h, i == 0 ? 0 : 997);
    }
    xcb_copy_area(c, pages[0], screen->root, gc, 0, 0, 0, 0, (uint16_t)w, (uint16_t)h);
    round_trip(c);
    srand((unsigned)getpid());
    for (long n = 1;; n++) {
        usleep((useconds_t)(300000 + rand() % 200000));
        double t0 = clock_seconds(CLOCK_REALTIME);
        xcb_copy_area(c, pages[n % 2], screen->root, gc, 0, 0, 0, 0, (uint16_t)w, (uint16_t)h);
        xcb_flush(c);
        round_trip(c);
        double t1 = clock_seconds(CLOCK_REALTIME);
        if (xcb_connection_has_error(c)) return 0;
        printf("change %ld %.6f %.6f\n", n, t0, t1);
        fflush(stdout);
    }
}

/* Frames from stdin onto the root, paced at fps; ends when stdin does. */
static int frames(xcb_connection_t *c, xcb_screen_t *screen, xcb_gcontext_t gc, int fps) {
    int w = screen->width_in_pixels, h = screen->height_in_pixels;
    size_t line = (size_t)w * 4, size = line * (size_t)h;
    uint8_t *pixels = malloc(size);
    if (!pixels) return 1;
    /* A put_image request holds at most the server's request length; 32 bytes of header. */
    size_t most = (size_t)xcb_get_maximum_request_length(c) * 4 - 32;
    int rows = (int)(most / line);
    if (rows < 1) rows = 1;
    xcb_pixmap_t page = xcb_generate_id(c);
    xcb_create_pixmap(c, screen->root_depth, page, screen->root, (uint16_t)w, (uint16_t)h);
    double next = now();
    for (;;) {
        size_t have = 0;
        while (have < size) {
            ssize_t n = read(0, pixels + have, size - have);
            if (n <= 0) return 0;
            have += (size_t)n;
        }
        for (int y = 0; y < h; y += rows) {
            int strip = h - y < rows ? h - y : rows;
            xcb_put_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, page, gc, (uint16_t)w, (uint16_t)strip, 0, (int16_t)y, 0,
                          screen->root_depth, (uint32_t)(line * (size_t)strip), pixels + line * (size_t)y);
        }
        xcb_copy_area(c, page, screen->root, gc, 0, 0, 0, 0, (uint16_t)w, (uint16_t)h);
        round_trip(c);
        if (xcb_connection_has_error(c)) return 0;
        pace(&next, fps);
    }
}

int main(int argc, char **argv) {
    const char *display = NULL;
    int fps = 30, still = 0, changing = 0, piped = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fps") && i + 1 < argc) fps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--still")) still = 1;
        else if (!strcmp(argv[i], "--changes")) changing = 1;
        else if (!strcmp(argv[i], "--frames")) piped = 1;
        else display = argv[i];
    }
    if (fps < 1) fps = 1;
    xcb_connection_t *c = xcb_connect(display, NULL);
    if (xcb_connection_has_error(c)) {
        fprintf(stderr, "x11-animator: cannot open display %s\n", display ? display : "(DISPLAY)");
        return 1;
    }
    xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
    xcb_gcontext_t gc = xcb_generate_id(c);
    uint32_t values[] = {0, 0};
    xcb_create_gc(c, gc, screen->root, XCB_GC_FOREGROUND | XCB_GC_GRAPHICS_EXPOSURES, values);
    if (changing) return changes(c, screen, gc);
    if (piped) return frames(c, screen, gc, fps);

    double next = now();
    for (long frame = 0;; frame++) {
        draw(c, screen->root, gc, screen->width_in_pixels, screen->height_in_pixels, frame);
        round_trip(c);
        if (xcb_connection_has_error(c)) return 0;
        if (still) {
            for (;;) pause();
        }
        pace(&next, fps);
    }
}
