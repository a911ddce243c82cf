// AVX2 frame-conversion kernels for VideoFrames (x86-64 only).
//
// Only kernels: the formulas, their constants and the frame logic (validation, bands, the
// odd last row of BGRA -> I420) stay in Swift. The constants arrive from Swift's
// `YUVToRGBCoefficients` / `RGBToYUVCoefficients` in the structs below, so there is one
// definition of the math; the output is bit-exact against Swift's `ReferenceKernels`.
//
// Each kernel is compiled with `__attribute__((target("avx2")))` and must only be called when
// `cvf_cpu_supports_avx2()` returned 1. On other architectures only that function exists (it
// returns 0).

#ifndef CVIDEOFRAMESAVX2_H
#define CVIDEOFRAMESAVX2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The integer YUV -> RGB formula's constants (see Swift's `YUVToRGBCoefficients`).
typedef struct CVFYUVToRGBCoefficients {
    uint16_t y_mul, rv, gu, gv, bu;
    int16_t r_bias, g_bias, b_bias;
} CVFYUVToRGBCoefficients;

/// The integer RGB -> YUV formula's constants (see Swift's `RGBToYUVCoefficients`): the
/// multipliers and the biases added to the luma and chroma sums (multiples of 256 and 1024
/// whose quotients fit 16 bits, as the kernel needs).
typedef struct CVFRGBToYUVCoefficients {
    int16_t yb, yg, yr, ub, ug, ur, vb, vg, vr;
    int32_t luma_bias, chroma_bias;
} CVFRGBToYUVCoefficients;

/// 1 when this CPU and the operating system run AVX2 code, else 0.
int cvf_cpu_supports_avx2(void);

#if defined(__x86_64__)

/// I420 -> BGRA for luma rows `first_row..<end_row` of a frame `width` pixels wide; luma row
/// `r` uses chroma row `r / 2`. Planes are given by their first row and stride. With
/// `write_around_cache` nonzero, the whole 64-byte lines of each BGRA row are written with
/// non-temporal stores (the same bytes; the destination is not read into the cache first).
void cvf_avx2_i420_to_bgra(const uint8_t *y, ptrdiff_t y_stride, const uint8_t *u, ptrdiff_t u_stride,
                           const uint8_t *v, ptrdiff_t v_stride, uint8_t *bgra, ptrdiff_t bgra_stride,
                           ptrdiff_t width, ptrdiff_t first_row, ptrdiff_t end_row, int write_around_cache,
                           const CVFYUVToRGBCoefficients *k);

/// NV12 -> BGRA, as `cvf_avx2_i420_to_bgra` with one interleaved U, V plane.
void cvf_avx2_nv12_to_bgra(const uint8_t *y, ptrdiff_t y_stride, const uint8_t *uv, ptrdiff_t uv_stride,
                           uint8_t *bgra, ptrdiff_t bgra_stride,
                           ptrdiff_t width, ptrdiff_t first_row, ptrdiff_t end_row, int write_around_cache,
                           const CVFYUVToRGBCoefficients *k);

/// BGRA -> I420 for chroma rows `first_chroma_row..<end_chroma_row`, each covering two full
/// luma rows (the caller handles the last row of an odd height).
void cvf_avx2_bgra_to_i420(const uint8_t *bgra, ptrdiff_t bgra_stride, uint8_t *y, ptrdiff_t y_stride,
                           uint8_t *u, ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride,
                           ptrdiff_t width, ptrdiff_t first_chroma_row, ptrdiff_t end_chroma_row, const CVFRGBToYUVCoefficients *k);

#endif

#ifdef __cplusplus
}
#endif

#endif
