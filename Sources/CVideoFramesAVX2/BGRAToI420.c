// BGRA -> I420, 32 pixels of two rows per step, in 256-bit AVX2 registers.
//
// Exactly Swift's `RGBToYUVCoefficients` formula: every sum is an exact `vpmaddwd` of 16-bit
// pairs. A pixel's dword masked gives the words [B, R], shifted right by 8 [G, A]; multiplied
// and added against [yb, yr] and [yg, 0] that is the pixel's luma sum. For chroma the two rows'
// [B, R] and [G, A] words are added, then the two pixels of each block (adjacent dwords, one
// `vphaddd`), so each multiply-add yields 8 useful chroma sums (the Swift 128-bit kernel
// leaves half its lanes idle there).
//
// The 32-bit results are packed to bytes inside each 128-bit half, which leaves pixel quads in
// the order 0, 2, 4, 6 | 1, 3, 5, 7: one `vpermd` puts luma in order, and one `vpermd` and one
// `vpshufb` the 16 U and 16 V bytes.

#include "CVideoFramesAVX2.h"

#if defined(__x86_64__)

#include <immintrin.h>
#include <string.h>

#define CVF_AVX2 __attribute__((target("avx2")))
#define CVF_AVX2_INLINE static inline __attribute__((target("avx2"), always_inline))

/// The coefficients as multiply-add word pairs, and the biases.
typedef struct {
    __m256i y_blue_red, y_green;
    __m256i u_blue_red, u_green, v_blue_red, v_green;
} Constants;

CVF_AVX2_INLINE __m256i word_pair(int16_t low, int16_t high) {
    return _mm256_set1_epi32((int)((uint32_t)(uint16_t)low | (uint32_t)(uint16_t)high << 16));
}

CVF_AVX2_INLINE Constants constants(const CVFRGBToYUVCoefficients *k) {
    // The biases ride on the constant 256 that replaces alpha: luma's is 256 times a 16-bit
    // multiplier, chroma's (a block has four 256s) 1024 times one.
    Constants c;
    c.y_blue_red = word_pair(k->yb, k->yr);
    c.y_green = word_pair(k->yg, (int16_t)(k->luma_bias / 256));
    c.u_blue_red = word_pair(k->ub, (int16_t)-k->ur);
    c.u_green = word_pair((int16_t)-k->ug, (int16_t)(k->chroma_bias / 1024));
    c.v_blue_red = word_pair((int16_t)-k->vb, k->vr);
    c.v_green = word_pair((int16_t)-k->vg, (int16_t)(k->chroma_bias / 1024));
    return c;
}

/// Luma of 8 pixels from their [B, R] and [G, 256] words: 8 dwords.
CVF_AVX2_INLINE __m256i luma8(__m256i blue_red, __m256i green_one, const Constants *c) {
    return _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(blue_red, c->y_blue_red), _mm256_madd_epi16(green_one, c->y_green)), 15);
}

/// U or V of the blocks whose sums are [ΣB, ΣR] and [ΣG, 4 * 256]: 8 dwords.
CVF_AVX2_INLINE __m256i chroma8(__m256i blue_red, __m256i green_ones, __m256i k_blue_red, __m256i k_green) {
    return _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(blue_red, k_blue_red), _mm256_madd_epi16(green_ones, k_green)), 17);
}

/// [B, R] words of 8 pixels.
CVF_AVX2_INLINE __m256i blue_red(__m256i pixels) { return _mm256_and_si256(pixels, _mm256_set1_epi32(0x00FF00FF)); }

/// [G, 256] words of 8 pixels (alpha replaced by the constant that carries the biases).
CVF_AVX2_INLINE __m256i green_one(__m256i pixels) { return _mm256_blend_epi16(_mm256_srli_epi16(pixels, 8), _mm256_set1_epi32(256 << 16), 0xAA); }

/// The sums of the two pixels of each block, from vertical sums `a` (pixels 0-7) and `b`
/// (8-15) as [X | Y << 16] dwords: one `vphaddd` adds adjacent dwords, which adds both words
/// (sums stay below 2^16, so no carry crosses a word): blocks 0, 1, 4, 5 | 2, 3, 6, 7. (Shifts,
/// adds and a blend did this before; `vphaddd` measured 1.24-1.26x libyuv hot instead of
/// 1.30x, 720p.)
CVF_AVX2_INLINE __m256i block_sums(__m256i a, __m256i b) { return _mm256_hadd_epi32(a, b); }

/// Dword order after packing inside halves: 0, 4, 1, 5, 2, 6, 3, 7.
CVF_AVX2_INLINE __m256i unpack_order(void) { return _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7); }

/// The results of 16 pixels of two rows (16-bit luma, 32-bit U and V), each in the order the
/// in-half packs leave.
typedef struct {
    __m256i luma_top, luma_bottom, u, v;
} Half;

/// 16 pixels of rows `s0` and `s1`.
CVF_AVX2_INLINE Half half16(const uint8_t *s0, const uint8_t *s1, const Constants *c) {
    __m256i top0 = _mm256_loadu_si256((const __m256i *)s0), top1 = _mm256_loadu_si256((const __m256i *)(s0 + 32));
    __m256i bottom0 = _mm256_loadu_si256((const __m256i *)s1), bottom1 = _mm256_loadu_si256((const __m256i *)(s1 + 32));
    __m256i top0_br = blue_red(top0), top0_g = green_one(top0), top1_br = blue_red(top1), top1_g = green_one(top1);
    __m256i bottom0_br = blue_red(bottom0), bottom0_g = green_one(bottom0), bottom1_br = blue_red(bottom1), bottom1_g = green_one(bottom1);
    Half h;
    h.luma_top = _mm256_packs_epi32(luma8(top0_br, top0_g, c), luma8(top1_br, top1_g, c));
    h.luma_bottom = _mm256_packs_epi32(luma8(bottom0_br, bottom0_g, c), luma8(bottom1_br, bottom1_g, c));
    __m256i br = block_sums(_mm256_add_epi16(top0_br, bottom0_br), _mm256_add_epi16(top1_br, bottom1_br));
    __m256i g = block_sums(_mm256_add_epi16(top0_g, bottom0_g), _mm256_add_epi16(top1_g, bottom1_g));
    h.u = chroma8(br, g, c->u_blue_red, c->u_green);
    h.v = chroma8(br, g, c->v_blue_red, c->v_green);
    return h;
}

/// 32 pixels of rows `s0` and `s1`: 32 luma bytes to each of `y0`, `y1`, 16 U and 16 V bytes.
CVF_AVX2_INLINE void convert32(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, const Constants *c) {
    Half a = half16(s0, s1, c), b = half16(s0 + 64, s1 + 64, c);
    __m256i order = unpack_order();
    _mm256_storeu_si256((__m256i *)y0, _mm256_permutevar8x32_epi32(_mm256_packus_epi16(a.luma_top, b.luma_top), order));
    _mm256_storeu_si256((__m256i *)y1, _mm256_permutevar8x32_epi32(_mm256_packus_epi16(a.luma_bottom, b.luma_bottom), order));
    // Bytes per half: U of blocks 0 1 4 5 8 9 12 13, then V of the same | 2 3 6 7 10 11 14 15;
    // after the dword permute U 0 1 4 5 2 3 6 7 8 9 12 13 10 11 14 15 | V the same.
    __m256i uv = _mm256_packus_epi16(_mm256_packs_epi32(a.u, b.u), _mm256_packs_epi32(a.v, b.v));
    const __m256i pairs = _mm256_setr_epi8(0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15,
                                           0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15);
    uv = _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(uv, order), pairs);
    _mm_storeu_si128((__m128i *)u, _mm256_castsi256_si128(uv));
    _mm_storeu_si128((__m128i *)v, _mm256_extracti128_si256(uv, 1));
}

/// Pixels `x..<x + n` (`x` even, `n` below 32) through copies; an odd last column is
/// duplicated, which makes its cut block's sums twice its two pixels', as the formula counts
/// them.
CVF_AVX2_INLINE void convert_part(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                                  ptrdiff_t x, ptrdiff_t n, const Constants *c) {
    ptrdiff_t chroma = (n + 1) / 2;
    uint8_t t0[128] = {0}, t1[128] = {0}, ty0[32], ty1[32], tu[16], tv[16];
    memcpy(t0, s0 + 4 * x, (size_t)(4 * n));
    memcpy(t1, s1 + 4 * x, (size_t)(4 * n));
    if (n % 2 == 1) {
        memcpy(t0 + 4 * n, t0 + 4 * (n - 1), 4);
        memcpy(t1 + 4 * n, t1 + 4 * (n - 1), 4);
    }
    convert32(t0, t1, ty0, ty1, tu, tv, c);
    memcpy(y0 + x, ty0, (size_t)n);
    memcpy(y1 + x, ty1, (size_t)n);
    memcpy(u + x / 2, tu, (size_t)chroma);
    memcpy(v + x / 2, tv, (size_t)chroma);
}

/// Two rows. Rows of 32 pixels or more need no copies but for an odd width's last column: the
/// last step may overlap the one before (it writes the same bytes). `next0`, `next1` are the
/// rows of the next pair, prefetched as these are read: in a frame that is not in cache that
/// turns the source's misses into misses already under way (measured, 720p, frames cycled
/// from 64 MB: 0.80-0.88x libyuv instead of 1.08-1.13x; 2 to 4 pairs ahead no better).
CVF_AVX2_INLINE void convert_rows(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                                  const uint8_t *next0, const uint8_t *next1, ptrdiff_t width, const Constants *c) {
    if (width < 32) {
        convert_part(s0, s1, y0, y1, u, v, 0, width, c);
        return;
    }
    ptrdiff_t x = 0;
    for (; x + 32 <= width; x += 32) {
        // The 128 bytes of each row this step reads, one pair down (two 64-byte lines).
        __builtin_prefetch(next0 + 4 * x, 0, 3);
        __builtin_prefetch(next0 + 4 * x + 64, 0, 3);
        __builtin_prefetch(next1 + 4 * x, 0, 3);
        __builtin_prefetch(next1 + 4 * x + 64, 0, 3);
        convert32(s0 + 4 * x, s1 + 4 * x, y0 + x, y1 + x, u + x / 2, v + x / 2, c);
    }
    ptrdiff_t last = (width - 32) & ~(ptrdiff_t)1;
    if (x < width) convert32(s0 + 4 * last, s1 + 4 * last, y0 + last, y1 + last, u + last / 2, v + last / 2, c);
    if (last + 32 < width) convert_part(s0, s1, y0, y1, u, v, last + 32, width - last - 32, c);
}

CVF_AVX2 void cvf_avx2_bgra_to_i420(const uint8_t *bgra, ptrdiff_t bgra_stride, uint8_t *y, ptrdiff_t y_stride,
                                    uint8_t *u, ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride,
                                    ptrdiff_t width, ptrdiff_t first_chroma_row, ptrdiff_t end_chroma_row, const CVFRGBToYUVCoefficients *k) {
    Constants c = constants(k);
    for (ptrdiff_t row = first_chroma_row; row < end_chroma_row; row++) {
        const uint8_t *s0 = bgra + 2 * row * bgra_stride;
        uint8_t *y0 = y + 2 * row * y_stride;
        // The last pair prefetches itself (no row past the caller's is touched).
        const uint8_t *next = row + 1 < end_chroma_row ? s0 + 2 * bgra_stride : s0;
        convert_rows(s0, s0 + bgra_stride, y0, y0 + y_stride, u + row * u_stride, v + row * v_stride, next, next + bgra_stride, width, &c);
    }
}

#endif
