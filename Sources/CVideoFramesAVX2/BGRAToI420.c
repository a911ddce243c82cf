// BGRA -> I420, 32 pixels of two rows per step, in 256-bit AVX2 registers.
//
// Exactly Swift's `RGBToYUVCoefficients` formula: every sum is an exact `vpmaddwd` of 16-bit
// pairs. A pixel's dword masked gives the words [B, R], shifted right by 8 [G, A]; multiplied
// and added against [yb, yr] and [yg, 0] that is the pixel's luma sum. For chroma the two rows'
// [B, R] and [G, A] words are added, then the two pixels of each block (adjacent dwords), and
// `vshufps` keeps one dword per block, so each multiply-add yields 8 useful chroma sums (the
// Swift 128-bit kernel leaves half its lanes idle there).
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
    __m256i y_blue_red, y_green, y_bias;
    __m256i u_blue_red, u_green, v_blue_red, v_green, chroma_bias;
} Constants;

CVF_AVX2_INLINE __m256i word_pair(int16_t low, int16_t high) {
    return _mm256_set1_epi32((int)((uint32_t)(uint16_t)low | (uint32_t)(uint16_t)high << 16));
}

CVF_AVX2_INLINE Constants constants(const CVFRGBToYUVCoefficients *k) {
    Constants c;
    c.y_blue_red = word_pair(k->yb, k->yr);
    c.y_green = word_pair(k->yg, 0);
    c.y_bias = _mm256_set1_epi32((k->y_offset << 15) + (1 << 14));
    c.u_blue_red = word_pair(k->ub, (int16_t)-k->ur);
    c.u_green = word_pair((int16_t)-k->ug, 0);
    c.v_blue_red = word_pair((int16_t)-k->vb, k->vr);
    c.v_green = word_pair((int16_t)-k->vg, 0);
    c.chroma_bias = _mm256_set1_epi32((128 << 17) + (1 << 16));
    return c;
}

/// Luma sums of 8 pixels from their [B, R] and [G, A] words, shifted down: 8 dwords.
CVF_AVX2_INLINE __m256i luma8(__m256i blue_red, __m256i green_alpha, const Constants *c) {
    __m256i sum = _mm256_add_epi32(_mm256_madd_epi16(blue_red, c->y_blue_red), _mm256_madd_epi16(green_alpha, c->y_green));
    return _mm256_srai_epi32(_mm256_add_epi32(sum, c->y_bias), 15);
}

/// One dword per 2x2 block of the 16 pixels whose vertical sums are `a` (pixels 0-7) and `b`
/// (8-15): the two pixels of each block added, blocks 0, 1, 4, 5 | 2, 3, 6, 7.
CVF_AVX2_INLINE __m256i blocks(__m256i a, __m256i b) {
    a = _mm256_add_epi16(a, _mm256_srli_epi64(a, 32));
    b = _mm256_add_epi16(b, _mm256_srli_epi64(b, 32));
    return _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0x88));
}

/// U or V of the blocks whose sums are [ΣB, ΣR] and [ΣG, ΣA]: 8 dwords.
CVF_AVX2_INLINE __m256i chroma8(__m256i blue_red, __m256i green_alpha, __m256i k_blue_red, __m256i k_green, __m256i bias) {
    __m256i sum = _mm256_add_epi32(_mm256_madd_epi16(blue_red, k_blue_red), _mm256_madd_epi16(green_alpha, k_green));
    return _mm256_srai_epi32(_mm256_add_epi32(sum, bias), 17);
}

/// Dword order after packing inside halves: 0, 4, 1, 5, 2, 6, 3, 7.
CVF_AVX2_INLINE __m256i unpack_order(void) { return _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7); }

/// 32 pixels of rows `s0` and `s1`: 32 luma bytes to each of `y0`, `y1`, 16 U and 16 V bytes.
CVF_AVX2_INLINE void convert32(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, const Constants *c) {
    const __m256i low_bytes = _mm256_set1_epi32(0x00FF00FF);
    __m256i top_br[4], top_ga[4], bottom_br[4], bottom_ga[4], luma_top[4], luma_bottom[4], sum_br[4], sum_ga[4];
    for (int i = 0; i < 4; i++) {
        __m256i top = _mm256_loadu_si256((const __m256i *)(s0 + 32 * i));
        __m256i bottom = _mm256_loadu_si256((const __m256i *)(s1 + 32 * i));
        top_br[i] = _mm256_and_si256(top, low_bytes);
        top_ga[i] = _mm256_srli_epi16(top, 8);
        bottom_br[i] = _mm256_and_si256(bottom, low_bytes);
        bottom_ga[i] = _mm256_srli_epi16(bottom, 8);
        luma_top[i] = luma8(top_br[i], top_ga[i], c);
        luma_bottom[i] = luma8(bottom_br[i], bottom_ga[i], c);
        sum_br[i] = _mm256_add_epi16(top_br[i], bottom_br[i]);
        sum_ga[i] = _mm256_add_epi16(top_ga[i], bottom_ga[i]);
    }
    __m256i order = unpack_order();
    __m256i luma0 = _mm256_packus_epi16(_mm256_packs_epi32(luma_top[0], luma_top[1]), _mm256_packs_epi32(luma_top[2], luma_top[3]));
    __m256i luma1 = _mm256_packus_epi16(_mm256_packs_epi32(luma_bottom[0], luma_bottom[1]), _mm256_packs_epi32(luma_bottom[2], luma_bottom[3]));
    _mm256_storeu_si256((__m256i *)y0, _mm256_permutevar8x32_epi32(luma0, order));
    _mm256_storeu_si256((__m256i *)y1, _mm256_permutevar8x32_epi32(luma1, order));

    __m256i br_a = blocks(sum_br[0], sum_br[1]), ga_a = blocks(sum_ga[0], sum_ga[1]);   // blocks 0-7
    __m256i br_b = blocks(sum_br[2], sum_br[3]), ga_b = blocks(sum_ga[2], sum_ga[3]);   // blocks 8-15
    __m256i u_words = _mm256_packs_epi32(chroma8(br_a, ga_a, c->u_blue_red, c->u_green, c->chroma_bias),
                                         chroma8(br_b, ga_b, c->u_blue_red, c->u_green, c->chroma_bias));
    __m256i v_words = _mm256_packs_epi32(chroma8(br_a, ga_a, c->v_blue_red, c->v_green, c->chroma_bias),
                                         chroma8(br_b, ga_b, c->v_blue_red, c->v_green, c->chroma_bias));
    // Bytes per half: U of blocks 0 1 4 5 8 9 12 13, then V of the same | 2 3 6 7 10 11 14 15.
    __m256i uv = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(u_words, v_words), order);
    const __m256i pairs = _mm256_setr_epi8(0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15,
                                           0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15);
    uv = _mm256_shuffle_epi8(uv, pairs);
    _mm_storeu_si128((__m128i *)u, _mm256_castsi256_si128(uv));
    _mm_storeu_si128((__m128i *)v, _mm256_extracti128_si256(uv, 1));
}

CVF_AVX2_INLINE void convert_rows(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                                  ptrdiff_t width, const Constants *c) {
    ptrdiff_t x = 0;
    for (; x + 32 <= width; x += 32) {
        convert32(s0 + 4 * x, s1 + 4 * x, y0 + x, y1 + x, u + x / 2, v + x / 2, c);
    }
    if (x < width) {
        // The last 1...31 pixels through copies; an odd last column is duplicated, which makes
        // its cut block's sums twice its two pixels', as the formula counts them.
        ptrdiff_t n = width - x, chroma = (n + 1) / 2;
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
}

CVF_AVX2 void cvf_avx2_bgra_to_i420(const uint8_t *bgra, ptrdiff_t bgra_stride, uint8_t *y, ptrdiff_t y_stride,
                                    uint8_t *u, ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride,
                                    ptrdiff_t width, ptrdiff_t first_chroma_row, ptrdiff_t end_chroma_row, const CVFRGBToYUVCoefficients *k) {
    Constants c = constants(k);
    for (ptrdiff_t row = first_chroma_row; row < end_chroma_row; row++) {
        const uint8_t *s0 = bgra + 2 * row * bgra_stride;
        uint8_t *y0 = y + 2 * row * y_stride;
        convert_rows(s0, s0 + bgra_stride, y0, y0 + y_stride, u + row * u_stride, v + row * v_stride, width, &c);
    }
}

#endif
