// I420 / NV12 -> BGRA, 32 pixels per step, in 256-bit AVX2 registers.
//
// The same computation as Swift's `YUVToBGRAKernel` (which documents the layout), twice as
// wide: 16-bit lanes hold pixel pairs, even and odd pixels are computed against the same
// chroma terms, `(X * m) >> 8` is `vpmulhuw` of `X << 8` by `m`.
//
// AVX2's byte, word and dword interleaves work inside each 128-bit half. I420: so that the
// four 32-byte stores come out in pixel order without a final cross-half permute, the inputs
// are arranged first: the low half takes pixel quads 0, 2, 4, 6 of the 32 pixels, the high
// half quads 1, 3, 5, 7 (one `vpermd` of the luma; the chroma comes in that order from one
// broadcast and one shuffle). NV12's chroma would need a `vpermd` of its own for that order, so
// NV12 keeps pixels 0-15 in the low half and 16-31 in the high one, and the results' halves are
// exchanged before the stores (four `vperm2i128`): 0.82-0.84x libyuv instead of 0.91-0.93x,
// 720p and 1080p, back-to-back calls on the same frame (I420 measured no better that way).
//
// Stores: ordinary (cached), or, when the caller asks (`write_around_cache`: Swift asks for
// large destinations it has not written recently, see `DestinationReuse`), non-temporal for
// every whole 64-byte line of a row, so a destination that is not in cache is written without
// first being read. The few pixels before a row's first whole line and after its last one are
// written through ordinary stores of a copy, so no line gets both kinds. Prefetching the
// destination (PREFETCHW) 1-4 rows ahead and the sources 2-4 rows ahead measured no better or
// worse than neither.

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

/// 32 BGRA pixels, 8 per register, in order.
typedef struct {
    __m256i p0, p1, p2, p3;
} Pixels32;

/// 32 pixels: luma `pairs` (32 bytes), chroma `u_high`, `v_high` (16 samples as `X << 8`), all
/// in the same order (quad order or halves, see the file's header).
CVF_AVX2_INLINE Pixels32 pixels32(__m256i pairs, __m256i u_high, __m256i v_high, const Constants *c) {
    const __m256i high_bytes = _mm256_set1_epi16((short)0xFF00);
    __m256i r = _mm256_add_epi16(_mm256_mulhi_epu16(v_high, c->rv), c->r_bias);
    __m256i g = _mm256_sub_epi16(_mm256_sub_epi16(c->g_bias, _mm256_mulhi_epu16(u_high, c->gu)), _mm256_mulhi_epu16(v_high, c->gv));
    __m256i b = _mm256_add_epi16(_mm256_mulhi_epu16(u_high, c->bu), c->b_bias);

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
    // In quad order these are pixels 0-7, 8-15, 16-23, 24-31; in halves [0-3 | 16-19],
    // [4-7 | 20-23], [8-11 | 24-27], [12-15 | 28-31].
    Pixels32 out;
    out.p0 = _mm256_unpacklo_epi32(even0, odd0);
    out.p1 = _mm256_unpackhi_epi32(even0, odd0);
    out.p2 = _mm256_unpacklo_epi32(even1, odd1);
    out.p3 = _mm256_unpackhi_epi32(even1, odd1);
    return out;
}

/// Pixels in halves (NV12) put in pixel order.
CVF_AVX2_INLINE Pixels32 in_order(Pixels32 px) {
    Pixels32 out;
    out.p0 = _mm256_permute2x128_si256(px.p0, px.p1, 0x20);
    out.p1 = _mm256_permute2x128_si256(px.p2, px.p3, 0x20);
    out.p2 = _mm256_permute2x128_si256(px.p0, px.p1, 0x31);
    out.p3 = _mm256_permute2x128_si256(px.p2, px.p3, 0x31);
    return out;
}

/// Ordinary stores of 32 pixels (in pixel order) to `d`.
CVF_AVX2_INLINE void store32(uint8_t *d, Pixels32 px) {
    _mm256_storeu_si256((__m256i *)d, px.p0);
    _mm256_storeu_si256((__m256i *)(d + 32), px.p1);
    _mm256_storeu_si256((__m256i *)(d + 64), px.p2);
    _mm256_storeu_si256((__m256i *)(d + 96), px.p3);
}

/// Non-temporal stores of 32 pixels (in pixel order) to `d`, which is 64-byte aligned: two
/// whole lines.
CVF_AVX2_INLINE void stream32(uint8_t *d, Pixels32 px) {
    _mm256_stream_si256((__m256i *)d, px.p0);
    _mm256_stream_si256((__m256i *)(d + 32), px.p1);
    _mm256_stream_si256((__m256i *)(d + 64), px.p2);
    _mm256_stream_si256((__m256i *)(d + 96), px.p3);
}

/// Ordinary stores of pixels `from..<to` (within 0...32) of 32 pixels (in pixel order) whose
/// first is at `d`, through a copy; the others are not touched. (Masked stores, `vpmaskmovd`,
/// measured slower.)
CVF_AVX2_INLINE void store32_part(uint8_t *d, Pixels32 px, ptrdiff_t from, ptrdiff_t to) {
    uint8_t t[128];
    store32(t, px);
    memcpy(d + 4 * from, t + 4 * from, (size_t)(4 * (to - from)));
}

/// 16 I420 chroma samples at `p` as `X << 8` in quad order: one broadcast load, one shuffle.
CVF_AVX2_INLINE __m256i i420_chroma(const uint8_t *p) {
    const __m256i spread = _mm256_setr_epi8(
        -128, 0, -128, 1, -128, 4, -128, 5, -128, 8, -128, 9, -128, 12, -128, 13,
        -128, 2, -128, 3, -128, 6, -128, 7, -128, 10, -128, 11, -128, 14, -128, 15);
    return _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p)), spread);
}

/// 32 pixels from `x` (even) of a row of luma `y` and chroma `c1` (I420: U, `c2` V; NV12:
/// the interleaved samples, `c2` unused), in pixel order.
CVF_AVX2_INLINE Pixels32 pixels_at(const uint8_t *y, const uint8_t *c1, const uint8_t *c2, int nv12, ptrdiff_t x, const Constants *c) {
    __m256i luma = _mm256_loadu_si256((const __m256i *)(y + x));
    if (nv12) {
        // In halves. Word i holds U | V << 8 of sample i.
        __m256i samples = _mm256_loadu_si256((const __m256i *)(c1 + x));
        return in_order(pixels32(luma, _mm256_slli_epi16(samples, 8), _mm256_and_si256(samples, _mm256_set1_epi16((short)0xFF00)), c));
    }
    return pixels32(_mm256_permutevar8x32_epi32(luma, quad_order()), i420_chroma(c1 + x / 2), i420_chroma(c2 + x / 2), c);
}

/// Pixels `x..<x + n` (`x` even, `n` below 32) through zero-filled copies: the formula is
/// per pixel, so the padding does not change the pixels kept.
CVF_AVX2_INLINE void convert_part(const uint8_t *y, const uint8_t *c1, const uint8_t *c2, int nv12, uint8_t *d, ptrdiff_t x, ptrdiff_t n, const Constants *c) {
    ptrdiff_t chroma = (n + 1) / 2;
    uint8_t ty[32] = {0}, t1[32] = {0}, t2[16] = {0}, td[128];
    memcpy(ty, y + x, (size_t)n);
    if (nv12) {
        memcpy(t1, c1 + x, (size_t)(2 * chroma));
    } else {
        memcpy(t1, c1 + x / 2, (size_t)chroma);
        memcpy(t2, c2 + x / 2, (size_t)chroma);
    }
    store32(td, pixels_at(ty, t1, t2, nv12, 0, c));
    memcpy(d + 4 * x, td, (size_t)(4 * n));
}

/// One row. Rows of 32 pixels or more need no copies: the last step may overlap the one
/// before (it writes the same bytes, or with `around` only the pixels not yet written); only
/// an odd width's last pixel, or a row narrower than 32, goes through `convert_part`.
/// `around`: non-temporal stores for the row's whole 64-byte lines (when the row starts on 8
/// bytes, so that its first whole line starts at an even pixel), ordinary stores of a copy for
/// the pixels before and after them.
CVF_AVX2_INLINE void convert_row(const uint8_t *y, const uint8_t *c1, const uint8_t *c2, int nv12, uint8_t *d, ptrdiff_t width, int around, const Constants *c) {
    if (width < 32) {
        convert_part(y, c1, c2, nv12, d, 0, width, c);
        return;
    }
    ptrdiff_t x = 0;
    ptrdiff_t head = (ptrdiff_t)((64 - ((uintptr_t)d & 63)) & 63) / 4;
    if (around && ((uintptr_t)d & 7) == 0 && head + 32 <= width) {
        if (head > 0) store32_part(d, pixels_at(y, c1, c2, nv12, 0, c), 0, head);
        for (x = head; x + 32 <= width; x += 32) stream32(d + 4 * x, pixels_at(y, c1, c2, nv12, x, c));
    } else {
        around = 0;
        for (; x + 32 <= width; x += 32) store32(d + 4 * x, pixels_at(y, c1, c2, nv12, x, c));
    }
    ptrdiff_t last = (width - 32) & ~(ptrdiff_t)1;
    if (x < width) {
        Pixels32 px = pixels_at(y, c1, c2, nv12, last, c);
        if (around) store32_part(d + 4 * last, px, x - last, 32);
        else store32(d + 4 * last, px);
    }
    if (last + 32 < width) convert_part(y, c1, c2, nv12, d, last + 32, width - last - 32, c);
}

CVF_AVX2 void cvf_avx2_i420_to_bgra(const uint8_t *y, ptrdiff_t y_stride, const uint8_t *u, ptrdiff_t u_stride,
                                    const uint8_t *v, ptrdiff_t v_stride, uint8_t *bgra, ptrdiff_t bgra_stride,
                                    ptrdiff_t width, ptrdiff_t first_row, ptrdiff_t end_row, int write_around_cache,
                                    const CVFYUVToRGBCoefficients *k) {
    Constants c = constants(k);
    for (ptrdiff_t row = first_row; row < end_row; row++) {
        convert_row(y + row * y_stride, u + (row / 2) * u_stride, v + (row / 2) * v_stride, 0, bgra + row * bgra_stride, width, write_around_cache, &c);
    }
    // Non-temporal stores are weakly ordered: visible before this function returns.
    if (write_around_cache) _mm_sfence();
}

CVF_AVX2 void cvf_avx2_nv12_to_bgra(const uint8_t *y, ptrdiff_t y_stride, const uint8_t *uv, ptrdiff_t uv_stride,
                                    uint8_t *bgra, ptrdiff_t bgra_stride,
                                    ptrdiff_t width, ptrdiff_t first_row, ptrdiff_t end_row, int write_around_cache,
                                    const CVFYUVToRGBCoefficients *k) {
    Constants c = constants(k);
    for (ptrdiff_t row = first_row; row < end_row; row++) {
        convert_row(y + row * y_stride, uv + (row / 2) * uv_stride, NULL, 1, bgra + row * bgra_stride, width, write_around_cache, &c);
    }
    if (write_around_cache) _mm_sfence();
}

#endif
