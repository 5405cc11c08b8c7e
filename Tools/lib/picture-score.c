/*
 * picture-score: SSIM and PSNR of decoded pictures against the synthetic
 * screen they were made from, at the source's size (motion-bench).
 *
 *   screenshare frames --size WxH --fps F --scenario S --count N |
 *       picture-score W H SAMPLES [RECORD]
 *
 * SAMPLES holds decoded pictures already scaled to W×H, one after the other,
 * each RECORD bytes (default W×H) that start with its 8-bit luma plane (so
 * I420 pictures are read as they are: RECORD = W×H×3/2). Each one's frame number is read from its stamp (the
 * project's FrameStamp: 32 blocks of 16×16 in the top rows, 24 bits of
 * frame number and 8 of check). The reference frames arrive in order on
 * stdin as bgr0; the luma of the ones that a sample names is taken with
 * BT.601 limited-range weights (libyuv's ARGBToI400, which the sender uses)
 * and compared, with the same definitions as the receiver's LumaComparison:
 * SSIM on 8×8 windows stepped by 4 pixels, C1 = (0.01·255)², C2 = (0.03·255)²,
 * averaged over the windows wholly inside the region; PSNR over the region's
 * 4×4 cells, capped at 100 dB. Regions: the picture below the stamp's rows
 * ("whole"), and the same without the dragged window ("text"), which is found
 * in the reference frame by its title bar and body colours.
 *
 * Prints one line per sample it could read: "FRAME SSIM PSNR TEXT_SSIM TEXT_PSNR",
 * then "unreadable N" for samples whose stamp did not read.
 * Build: gcc -O2 -o picture-score picture-score.c -lm
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STAMP_BLOCK = 16, STAMP_BITS = 32, CELL = 4 };
static const double C1 = (0.01 * 255) * (0.01 * 255), C2 = (0.03 * 255) * (0.03 * 255), PSNR_CAP = 100;
/* SyntheticScreen's dragged window: title bar and body, as bgr0 bytes. */
static const uint8_t TITLE[3] = {0x99, 0x5C, 0x33}, BODY[3] = {0xF2, 0xEE, 0xEE};

typedef struct { int x, y, w, h; } Rect;
typedef struct { long long x, y, xx, yy, xy; } Cell;
typedef struct { long index; uint32_t frame; } Sample;

static int stamp_check_ok(uint32_t word) {
    uint32_t n = word >> 8;
    return ((n ^ (n >> 8) ^ (n >> 16) ^ 0xA5) & 0xFF) == (word & 0xFF);
}

static int read_stamp(const uint8_t *luma, int width, uint32_t *frame) {
    uint32_t word = 0;
    for (int bit = 0; bit < STAMP_BITS; bit++) {
        int x = bit * STAMP_BLOCK + STAMP_BLOCK / 2, y = STAMP_BLOCK / 2;
        if (x >= width) return 0;
        word = word << 1 | (luma[y * width + x] > 128);
    }
    if (!stamp_check_ok(word)) return 0;
    *frame = word >> 8;
    return 1;
}

static int same(const uint8_t *p, const uint8_t *c) { return p[0] == c[0] && p[1] == c[1] && p[2] == c[2]; }

/* The window's rectangle in a bgr0 frame, from its title bar's extent and
 * the body below it down to the bottom border; 0 when no window is drawn. */
static int find_window(const uint8_t *bgr0, int width, int height, Rect *r) {
    int minx = width, maxx = -1, miny = height, maxy = -1;
    for (int y = 0; y < height; y++) {
        const uint8_t *row = bgr0 + (size_t)y * width * 4;
        for (int x = 0; x < width; x++) {
            if (same(row + x * 4, TITLE)) {
                if (x < minx) minx = x;
                if (x > maxx) maxx = x;
                if (y < miny) miny = y;
                if (y > maxy) maxy = y;
            }
        }
    }
    if (maxx < 0) return 0;
    int bottom = maxy + 1;
    while (bottom < height && same(bgr0 + ((size_t)bottom * width + minx) * 4, BODY)) bottom++;
    int x0 = minx > 0 ? minx - 1 : 0, x1 = maxx + 1 < width ? maxx + 1 : width - 1;
    int y1 = bottom < height ? bottom : height - 1;
    *r = (Rect){x0, miny, x1 - x0 + 1, y1 - miny + 1};
    return 1;
}

static int contains(Rect a, Rect r) { return r.x >= a.x && r.y >= a.y && r.x + r.w <= a.x + a.w && r.y + r.h <= a.y + a.h; }
static int intersects(Rect a, Rect r) { return r.x < a.x + a.w && a.x < r.x + r.w && r.y < a.y + a.h && a.y < r.y + r.h; }

static void cell_sums(const uint8_t *ref, const uint8_t *dec, int width, int height, Cell *cells) {
    int cx_n = width / CELL, cy_n = height / CELL;
    for (int cy = 0; cy < cy_n; cy++) {
        for (int cx = 0; cx < cx_n; cx++) {
            Cell c = {0, 0, 0, 0, 0};
            for (int y = cy * CELL; y < (cy + 1) * CELL; y++) {
                const uint8_t *r = ref + (size_t)y * width + cx * CELL, *d = dec + (size_t)y * width + cx * CELL;
                for (int i = 0; i < CELL; i++) {
                    long long a = r[i], b = d[i];
                    c.x += a; c.y += b; c.xx += a * a; c.yy += b * b; c.xy += a * b;
                }
            }
            cells[cy * cx_n + cx] = c;
        }
    }
}

static int usable(Rect area, const Rect *excluded, Rect r) {
    return contains(area, r) && !(excluded && intersects(*excluded, r));
}

static void measure(const Cell *cells, int width, int height, Rect area, const Rect *excluded, double *ssim, double *psnr) {
    int cx_n = width / CELL, cy_n = height / CELL;
    double sum = 0;
    long windows = 0;
    long long squared = 0, pixels = 0;
    for (int cy = 0; cy < cy_n; cy++) {
        for (int cx = 0; cx < cx_n; cx++) {
            const Cell *c = &cells[cy * cx_n + cx];
            if (usable(area, excluded, (Rect){cx * CELL, cy * CELL, CELL, CELL})) {
                squared += c->xx + c->yy - 2 * c->xy;
                pixels += CELL * CELL;
            }
            if (cx + 1 >= cx_n || cy + 1 >= cy_n || !usable(area, excluded, (Rect){cx * CELL, cy * CELL, 2 * CELL, 2 * CELL}))
                continue;
            const Cell *b = c + 1, *d = c + cx_n, *e = c + cx_n + 1;
            double n = 4 * CELL * CELL;
            double mx = (c->x + b->x + d->x + e->x) / n, my = (c->y + b->y + d->y + e->y) / n;
            double vx = (c->xx + b->xx + d->xx + e->xx) / n - mx * mx;
            double vy = (c->yy + b->yy + d->yy + e->yy) / n - my * my;
            double cov = (c->xy + b->xy + d->xy + e->xy) / n - mx * my;
            sum += (2 * mx * my + C1) * (2 * cov + C2) / ((mx * mx + my * my + C1) * (vx + vy + C2));
            windows++;
        }
    }
    *ssim = windows ? sum / windows : 0;
    if (!pixels) *psnr = 0;
    else if (!squared) *psnr = PSNR_CAP;
    else {
        double v = 10 * log10(255.0 * 255.0 / ((double)squared / pixels));
        *psnr = v < PSNR_CAP ? v : PSNR_CAP;
    }
}

static int by_frame(const void *a, const void *b) {
    const Sample *x = a, *y = b;
    if (x->frame != y->frame) return x->frame < y->frame ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: picture-score WIDTH HEIGHT SAMPLES [RECORD] < reference-bgr0\n");
        return 2;
    }
    int width = atoi(argv[1]), height = atoi(argv[2]);
    if (width < 2 * CELL || height < STAMP_BLOCK + 2 * CELL) {
        fprintf(stderr, "picture-score: a %dx%d picture is too small\n", width, height);
        return 2;
    }
    FILE *samples = fopen(argv[3], "rb");
    if (!samples) {
        perror(argv[3]);
        return 2;
    }
    size_t plane = (size_t)width * height, frame_bytes = plane * 4;
    long record = argc == 5 ? atol(argv[4]) : (long)plane;
    if (record < (long)plane) {
        fprintf(stderr, "picture-score: a record of %ld bytes cannot hold a %dx%d luma plane\n", record, width, height);
        return 2;
    }
    uint8_t *decoded = malloc(plane), *bgr0 = malloc(frame_bytes), *ref = malloc(plane);
    Cell *cells = malloc(sizeof(Cell) * (width / CELL) * (height / CELL));
    long capacity = 64, count = 0, unreadable = 0;
    Sample *list = malloc(sizeof(Sample) * capacity);
    if (!decoded || !bgr0 || !ref || !cells || !list) return 2;

    for (long index = 0; fseek(samples, index * record, SEEK_SET) == 0 && fread(decoded, 1, plane, samples) == plane; index++) {
        uint32_t frame;
        if (!read_stamp(decoded, width, &frame)) {
            unreadable++;
            continue;
        }
        if (count == capacity) {
            capacity *= 2;
            list = realloc(list, sizeof(Sample) * capacity);
            if (!list) return 2;
        }
        list[count++] = (Sample){index, frame};
    }
    qsort(list, count, sizeof(Sample), by_frame);

    Rect whole = {0, STAMP_BLOCK, width, height - STAMP_BLOCK};
    long next = 0;
    for (uint32_t f = 0; next < count; f++) {
        if (fread(bgr0, 1, frame_bytes, stdin) != frame_bytes) {
            fprintf(stderr, "picture-score: the reference ended at frame %u, before frame %u\n", f, list[next].frame);
            return 1;
        }
        if (list[next].frame != f) continue;
        for (size_t i = 0; i < plane; i++) {
            const uint8_t *p = bgr0 + i * 4;
            ref[i] = (uint8_t)((66 * p[2] + 129 * p[1] + 25 * p[0] + 0x1080) >> 8);
        }
        Rect window;
        int has_window = find_window(bgr0, width, height, &window);
        for (; next < count && list[next].frame == f; next++) {
            if (fseek(samples, list[next].index * record, SEEK_SET) != 0 || fread(decoded, 1, plane, samples) != plane) return 1;
            double ssim, psnr, text_ssim, text_psnr;
            cell_sums(ref, decoded, width, height, cells);
            measure(cells, width, height, whole, NULL, &ssim, &psnr);
            measure(cells, width, height, whole, has_window ? &window : NULL, &text_ssim, &text_psnr);
            printf("%u %.5f %.3f %.5f %.3f\n", f, ssim, psnr, text_ssim, text_psnr);
        }
    }
    printf("unreadable %ld\n", unreadable);
    return 0;
}
