// A call-by-call timing of our AVX2 frame kernels against libyuv's (docs/speed.md).
// `callscope frames bench` times batches, whose means absorb whatever other work
// takes from the CPU; this alternates single calls of ours and libyuv's on the same frames and
// reports each one's fastest call and the median of the call-by-call ratios, which load on the
// machine hardly moves.
//
//     bash Scripts/frames_harness.sh            (builds with clang -O2, as SwiftPM's release)
//
// Contestants: `cvf_avx2_i420_to_bgra` and `cvf_avx2_nv12_to_bgra` against `I420ToARGBMatrix`
// and `NV12ToARGBMatrix` (BT.601 limited), and `cvf_avx2_bgra_to_i420` against `ARGBToI420`;
// one thread; libyuv picks its widest code (AVX2 for these). Our YUV -> BGRA stores are the
// ones `FrameConverter` chooses for these patterns (`DestinationReuse`): ordinary when hot (the
// destination was written one call earlier), non-temporal when streaming (64 MB earlier). "hot" converts the same buffers every call; "streaming" cycles through
// frames and destinations totalling more than 128 MB, ours half the set away from libyuv's, so
// every frame was last touched 64 MB (twice a 32 MB L3) earlier. Every buffer starts 48
// bytes past a 64-byte boundary, as the bench's Swift array storage does. Which of the two runs
// first alternates from call to call.

#include <libyuv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "CVideoFramesAVX2.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/// `bytes` of random data 48 bytes past a 64-byte boundary.
static uint8_t *buffer(size_t bytes) {
    uint8_t *base = aligned_alloc(64, (bytes + 48 + 63) / 64 * 64);
    if (!base) abort();
    for (size_t i = 0; i < bytes + 48; i++) base[i] = (uint8_t)rand();
    return base + 48;
}

typedef struct {
    int width, height;
    uint8_t *bgra, *y, *u, *v, *uv;
} Frame;

/// The three paths timed.
typedef enum { I420_TO_BGRA, NV12_TO_BGRA, BGRA_TO_I420 } Path;

static const CVFYUVToRGBCoefficients yuv_to_rgb = {9539, 13075, 3209, 6660, 16525, -7116, 4354, -8842};
static const CVFRGBToYUVCoefficients rgb_to_yuv = {3208, 16519, 8414, 14392, 9535, 4857, 2341, 12052, 14392,
                                                   (16 << 15) + (1 << 14), (128 << 17) + (1 << 16)};

static void ours(const Frame *f, Path path, int streaming) {
    int w = f->width, h = f->height;
    switch (path) {
    case I420_TO_BGRA: cvf_avx2_i420_to_bgra(f->y, w, f->u, w / 2, f->v, w / 2, f->bgra, 4 * w, w, 0, h, streaming, &yuv_to_rgb); break;
    case NV12_TO_BGRA: cvf_avx2_nv12_to_bgra(f->y, w, f->uv, w, f->bgra, 4 * w, w, 0, h, streaming, &yuv_to_rgb); break;
    case BGRA_TO_I420: cvf_avx2_bgra_to_i420(f->bgra, 4 * w, f->y, w, f->u, w / 2, f->v, w / 2, w, 0, h / 2, &rgb_to_yuv); break;
    }
}

static void theirs(const Frame *f, Path path) {
    int w = f->width, h = f->height;
    switch (path) {
    case I420_TO_BGRA: I420ToARGBMatrix(f->y, w, f->u, w / 2, f->v, w / 2, f->bgra, 4 * w, &kYuvI601Constants, w, h); break;
    case NV12_TO_BGRA: NV12ToARGBMatrix(f->y, w, f->uv, w, f->bgra, 4 * w, &kYuvI601Constants, w, h); break;
    case BGRA_TO_I420: ARGBToI420(f->bgra, 4 * w, f->y, w, f->u, w / 2, f->v, w / 2, w, h); break;
    }
}

static void measure(const char *size, int width, int height, Path path, int streaming, int calls) {
    size_t pixels = (size_t)width * height;
    int count = streaming ? 2 * ((int)((64u << 20) / (pixels * 11 / 2)) + 1) : 1;
    Frame *frames = calloc((size_t)count, sizeof(Frame));
    for (int i = 0; i < count; i++)
        frames[i] = (Frame){width, height, buffer(4 * pixels), buffer(pixels), buffer(pixels / 4), buffer(pixels / 4), buffer(pixels / 2)};
    double *ratios = malloc(sizeof(double) * (size_t)calls), best_ours = 1e9, best_theirs = 1e9;
    for (int i = -count; i < calls; i++) {  // the first round warms up
        const Frame *f = &frames[(i + count) % count], *g = &frames[(i + count + count / 2) % count];
        double a, b;
        if (i % 2 == 0) {
            double t0 = now_ms();
            ours(f, path, streaming);
            double t1 = now_ms();
            theirs(g, path);
            a = t1 - t0, b = now_ms() - t1;
        } else {
            double t0 = now_ms();
            theirs(g, path);
            double t1 = now_ms();
            ours(f, path, streaming);
            b = t1 - t0, a = now_ms() - t1;
        }
        if (i < 0) continue;
        if (a < best_ours) best_ours = a;
        if (b < best_theirs) best_theirs = b;
        ratios[i] = a / b;
    }
    qsort(ratios, (size_t)calls, sizeof(double), compare_doubles);
    printf("| %s | %s | %s | %.3f / %.3f = %.2f (%.2f) |\n", size, path == I420_TO_BGRA ? "I420→BGRA" : path == NV12_TO_BGRA ? "NV12→BGRA" : "BGRA→I420", streaming ? "streaming" : "hot",
           best_ours, best_theirs, best_ours / best_theirs, ratios[calls / 2]);
    for (int i = 0; i < count; i++) {
        free(frames[i].bgra - 48), free(frames[i].y - 48), free(frames[i].u - 48), free(frames[i].v - 48), free(frames[i].uv - 48);
    }
    free(frames), free(ratios);
}

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 1000;
    if (calls < 1 || !cvf_cpu_supports_avx2()) {
        fprintf(stderr, calls < 1 ? "usage: frames_harness [calls]\n" : "this CPU has no AVX2\n");
        return 1;
    }
    printf("| size | path | regime | ours / libyuv ms, fastest call = ratio (median call-by-call ratio) |\n|---|---|---|---|\n");
    for (Path path = I420_TO_BGRA; path <= BGRA_TO_I420; path++) {
        measure("720p", 1280, 720, path, 0, calls);
        measure("720p", 1280, 720, path, 1, calls);
        measure("1080p", 1920, 1080, path, 0, calls);
        measure("1080p", 1920, 1080, path, 1, calls);
    }
    return 0;
}
