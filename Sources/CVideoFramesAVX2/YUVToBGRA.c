// I420 / NV12 -> BGRA, 32 pixels per step, in 256-bit AVX2 registers.
//
// The same computation as Swift's `YUVToBGRAKernel` (which documents the layout), twice as
// wide: 16-bit lanes hold pixel pairs, even and odd pixels are computed against the same
// chroma terms, `(X * m) >> 8` is `vpmulhuw` of `X << 8` by `m`.
//
// AVX2's byte, word and dword interleaves work inside each 128-bit half. So that the four
// 32-byte stores come out in pixel order without a final cross-half permute, the inputs are
// arranged first: the low half takes pixel quads 0, 2, 4, 6 of the 32 pixels, the high half
// quads 1, 3, 5, 7 (one `vpermd` of the luma; the chroma samples the same way).
//
// Stores are ordinary (cached). Non-temporal stores to 64-byte-aligned lines were measured
// (720p, this kernel): streaming frames 0.75-0.98x libyuv instead of about 1.0x, cached frames
// 0.96-1.24x instead of 0.79-0.91x, and much slower still when a line was shared with an
// ordinary store; not worth it.

#include "CVideoFramesAVX2.h"

#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#define CVF_AVX2 __attribute__((target("avx2")))
#define CVF_AVX2_INLINE static inline __attribute__((target("avx2"), always_inline))

/// The coefficients splatted across lanes.
typedef struct {
    __m256i y_mul, rv, gu, gv, bu, r_bias, g_bias, b_bias;
} Constants;

CVF_AVX2_INLINE Constants constants(const CVFYUVToRGBCoefficients *k) {
    Constants c;
    c.y_mul = _mm256_set1_epi16((short)k->y_mul);
    c.rv = _mm256_set1_epi16((short)k->rv);
    c.gu = _mm256_set1_epi16((short)k->gu);
    c.gv = _mm256_set1_epi16((short)k->gv);
    c.bu = _mm256_set1_epi16((short)k->bu);
    c.r_bias = _mm256_set1_epi16(k->r_bias);
    c.g_bias = _mm256_set1_epi16(k->g_bias);
    c.b_bias = _mm256_set1_epi16(k->b_bias);
    return c;
}

/// Dword (pixel quad) order: low half quads 0, 2, 4, 6, high half 1, 3, 5, 7.
CVF_AVX2_INLINE __m256i quad_order(void) { return _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7); }

/// 32 pixels: luma `y` (32 bytes), chroma `u_high`, `v_high` (16 samples as `X << 8`, in
/// quad order) to 128 BGRA bytes at `d`.
CVF_AVX2_INLINE void convert32(const uint8_t *y, __m256i u_high, __m256i v_high, uint8_t *d, const Constants *c) {
    const __m256i high_bytes = _mm256_set1_epi16((short)0xFF00);
    __m256i r = _mm256_add_epi16(_mm256_mulhi_epu16(v_high, c->rv), c->r_bias);
    __m256i g = _mm256_sub_epi16(_mm256_sub_epi16(c->g_bias, _mm256_mulhi_epu16(u_high, c->gu)), _mm256_mulhi_epu16(v_high, c->gv));
    __m256i b = _mm256_add_epi16(_mm256_mulhi_epu16(u_high, c->bu), c->b_bias);

    __m256i pairs = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)y), quad_order());
    __m256i even = _mm256_mulhi_epu16(_mm256_slli_epi16(pairs, 8), c->y_mul);
    __m256i odd = _mm256_mulhi_epu16(_mm256_and_si256(pairs, high_bytes), c->y_mul);

    // Per half: the channel's even pixels' bytes, then its odd pixels' bytes.
    __m256i rr = _mm256_packus_epi16(_mm256_srai_epi16(_mm256_add_epi16(even, r), 5), _mm256_srai_epi16(_mm256_add_epi16(odd, r), 5));
    __m256i gg = _mm256_packus_epi16(_mm256_srai_epi16(_mm256_add_epi16(even, g), 5), _mm256_srai_epi16(_mm256_add_epi16(odd, g), 5));
    __m256i bb = _mm256_packus_epi16(_mm256_srai_epi16(_mm256_add_epi16(even, b), 5), _mm256_srai_epi16(_mm256_add_epi16(odd, b), 5));
    __m256i alpha = _mm256_set1_epi8((char)0xFF);

    __m256i bg_even = _mm256_unpacklo_epi8(bb, gg), bg_odd = _mm256_unpackhi_epi8(bb, gg);
    __m256i ra_even = _mm256_unpacklo_epi8(rr, alpha), ra_odd = _mm256_unpackhi_epi8(rr, alpha);
    __m256i even0 = _mm256_unpacklo_epi16(bg_even, ra_even), even1 = _mm256_unpackhi_epi16(bg_even, ra_even);
    __m256i odd0 = _mm256_unpacklo_epi16(bg_odd, ra_odd), odd1 = _mm256_unpackhi_epi16(bg_odd, ra_odd);
    _mm256_storeu_si256((__m256i *)d, _mm256_unpacklo_epi32(even0, odd0));
    _mm256_storeu_si256((__m256i *)(d + 32), _mm256_unpackhi_epi32(even0, odd0));
    _mm256_storeu_si256((__m256i *)(d + 64), _mm256_unpacklo_epi32(even1, odd1));
    _mm256_storeu_si256((__m256i *)(d + 96), _mm256_unpackhi_epi32(even1, odd1));
}

/// 16 I420 chroma samples at `p` as `X << 8` in quad order: one broadcast load, one shuffle.
CVF_AVX2_INLINE __m256i i420_chroma(const uint8_t *p) {
    const __m256i spread = _mm256_setr_epi8(
        -128, 0, -128, 1, -128, 4, -128, 5, -128, 8, -128, 9, -128, 12, -128, 13,
        -128, 2, -128, 3, -128, 6, -128, 7, -128, 10, -128, 11, -128, 14, -128, 15);
    return _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p)), spread);
}

/// Pixels `x..<x + n` (`x` even, `n` below 32) through zero-filled copies: the formula is
/// per pixel, so the padding does not change the pixels kept.
CVF_AVX2_INLINE void i420_part(const uint8_t *y, const uint8_t *u, const uint8_t *v, uint8_t *d, ptrdiff_t x, ptrdiff_t n, const Constants *c) {
    ptrdiff_t chroma = (n + 1) / 2;
    uint8_t ty[32] = {0}, tu[16] = {0}, tv[16] = {0}, td[128];
    memcpy(ty, y + x, (size_t)n);
    memcpy(tu, u + x / 2, (size_t)chroma);
    memcpy(tv, v + x / 2, (size_t)chroma);
    convert32(ty, i420_chroma(tu), i420_chroma(tv), td, c);
    memcpy(d + 4 * x, td, (size_t)(4 * n));
}

CVF_AVX2_INLINE void i420_step(const uint8_t *y, const uint8_t *u, const uint8_t *v, uint8_t *d, ptrdiff_t x, const Constants *c) {
    convert32(y + x, i420_chroma(u + x / 2), i420_chroma(v + x / 2), d + 4 * x, c);
}

/// One row. Rows of 32 pixels or more need no copies: the last step may overlap the one
/// before (it writes the same bytes); only an odd width's last pixel, or a row narrower than
/// 32, goes through `i420_part`.
CVF_AVX2_INLINE void i420_row(const uint8_t *y, const uint8_t *u, const uint8_t *v, uint8_t *d, ptrdiff_t width, const Constants *c) {
    if (width < 32) {
        i420_part(y, u, v, d, 0, width, c);
        return;
    }
    ptrdiff_t x = 0;
    for (; x + 32 <= width; x += 32) i420_step(y, u, v, d, x, c);
    ptrdiff_t last = (width - 32) & ~(ptrdiff_t)1;
    if (x < width) i420_step(y, u, v, d, last, c);
    if (last + 32 < width) i420_part(y, u, v, d, last + 32, width - last - 32, c);
}

CVF_AVX2_INLINE void nv12_step(const uint8_t *y, const uint8_t *uv, uint8_t *d, ptrdiff_t x, const Constants *c) {
    // Word i holds U | V << 8 of sample i.
    __m256i samples = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(uv + x)), quad_order());
    convert32(y + x, _mm256_slli_epi16(samples, 8), _mm256_and_si256(samples, _mm256_set1_epi16((short)0xFF00)), d + 4 * x, c);
}

CVF_AVX2_INLINE void nv12_part(const uint8_t *y, const uint8_t *uv, uint8_t *d, ptrdiff_t x, ptrdiff_t n, const Constants *c) {
    ptrdiff_t chroma = (n + 1) / 2;
    uint8_t ty[32] = {0}, tuv[32] = {0}, td[128];
    memcpy(ty, y + x, (size_t)n);
    memcpy(tuv, uv + x, (size_t)(2 * chroma));
    nv12_step(ty, tuv, td, 0, c);
    memcpy(d + 4 * x, td, (size_t)(4 * n));
}

CVF_AVX2_INLINE void nv12_row(const uint8_t *y, const uint8_t *uv, uint8_t *d, ptrdiff_t width, const Constants *c) {
    if (width < 32) {
        nv12_part(y, uv, d, 0, width, c);
        return;
    }
    ptrdiff_t x = 0;
    for (; x + 32 <= width; x += 32) nv12_step(y, uv, d, x, c);
    ptrdiff_t last = (width - 32) & ~(ptrdiff_t)1;
    if (x < width) nv12_step(y, uv, d, last, c);
    if (last + 32 < width) nv12_part(y, uv, d, last + 32, width - last - 32, c);
}

CVF_AVX2 void cvf_avx2_i420_to_bgra(const uint8_t *y, ptrdiff_t y_stride, const uint8_t *u, ptrdiff_t u_stride,
                                    const uint8_t *v, ptrdiff_t v_stride, uint8_t *bgra, ptrdiff_t bgra_stride,
                                    ptrdiff_t width, ptrdiff_t first_row, ptrdiff_t end_row, const CVFYUVToRGBCoefficients *k) {
    Constants c = constants(k);
    for (ptrdiff_t row = first_row; row < end_row; row++) {
        i420_row(y + row * y_stride, u + (row / 2) * u_stride, v + (row / 2) * v_stride, bgra + row * bgra_stride, width, &c);
    }
}

CVF_AVX2 void cvf_avx2_nv12_to_bgra(const uint8_t *y, ptrdiff_t y_stride, const uint8_t *uv, ptrdiff_t uv_stride,
                                    uint8_t *bgra, ptrdiff_t bgra_stride,
                                    ptrdiff_t width, ptrdiff_t first_row, ptrdiff_t end_row, const CVFYUVToRGBCoefficients *k) {
    Constants c = constants(k);
    for (ptrdiff_t row = first_row; row < end_row; row++) {
        nv12_row(y + row * y_stride, uv + (row / 2) * uv_stride, bgra + row * bgra_stride, width, &c);
    }
}

#endif
