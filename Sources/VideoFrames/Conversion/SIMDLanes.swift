// Lane operations the vector kernels are built from, written so that LLVM turns each into one
// or two instructions: checked in the x86-64 code (`pmulhuw`, `packuswb`, `pmaddwd`,
// `punpcklbw`/`punpcklwd`); on arm64 the same IR has direct NEON forms (`umull`/`uzp2`,
// `sqxtun`, `smlal`, `zip1`), not checked here. Swift has no shuffle, widening or saturating
// intrinsics, so they are spelled as per-lane code that the SLP vectoriser recognises; they
// must be inlined into the kernel for that to happen, hence `@inline(always)` (Swift 6.3; older
// compilers fall back to the `__always` hint, which gives the same results, more slowly when
// the optimiser declines to inline).
//
// Exceptions, on x86-64: the saturating packs and the pairwise multiply-add call SSE2's
// `packuswb`/`packssdw` and `pmaddwd` through Clang's intrinsics module. Written per lane, LLVM
// folds the 16-bit pack's min/max/truncate into the shuffles around it and rebuilds the BGRA
// interleave from 20 shuffles instead of 17, about 8 % slower (`callscope frames bench`, I420 →
// BGRA 720p, same machine: 0.245 → 0.225 ms), and it left half of BGRA → I420's chroma
// multiply-adds scalar (720p: 1.06 → 0.37 ms). SSE2 is the x86-64 baseline, so these intrinsics
// inline into single instructions with no compiler flags; SSSE3 and AVX2 ones cannot be used
// (Swift 6.3 cannot compile a function for a wider instruction set than the module's).
//
// Every function is exact: the kernels' results depend only on Swift's integer semantics (and
// the documented semantics of `packuswb`, identical to the per-lane code), never on which
// instructions the compiler picks.

#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

typealias Int16x8 = SIMD8<Int16>
typealias UInt16x8 = SIMD8<UInt16>
typealias UInt8x16 = SIMD16<UInt8>

/// Bytes 0..<8 of `v` as the high bytes of 16-bit lanes: `UInt16(v[i]) << 8`.
#if compiler(>=6.3)
@inline(always)
#else
@inline(__always)
#endif
func highBytesOfLow(_ v: UInt8x16) -> UInt16x8 {
    unsafeBitCast(UInt8x16(0, v[0], 0, v[1], 0, v[2], 0, v[3], 0, v[4], 0, v[5], 0, v[6], 0, v[7]), to: UInt16x8.self)
}

/// Bytes 8..<16 of `v` as the high bytes of 16-bit lanes: `UInt16(v[8 + i]) << 8`.
#if compiler(>=6.3)
@inline(always)
#else
@inline(__always)
#endif
func highBytesOfHigh(_ v: UInt8x16) -> UInt16x8 {
    unsafeBitCast(UInt8x16(0, v[8], 0, v[9], 0, v[10], 0, v[11], 0, v[12], 0, v[13], 0, v[14], 0, v[15]), to: UInt16x8.self)
}

/// The high half of the unsigned 32-bit products: `(a[i] * b[i]) >> 16`, as `Int16` (the
/// kernels' operands keep it below 2¹⁵).
#if compiler(>=6.3)
@inline(always)
#else
@inline(__always)
#endif
func multiplyHigh(_ a: UInt16x8, _ b: UInt16x8) -> Int16x8 {
    var result = Int16x8()
    for i in 0..<8 { result[i] = Int16(truncatingIfNeeded: (UInt32(a[i]) &* UInt32(b[i])) &>> 16) }
    return result
}

/// `a` then `b`, each lane clamped to 0...255: an unsigned saturating pack.
#if compiler(>=6.3)
@inline(always)
#else
@inline(__always)
#endif
func packSaturated(_ a: Int16x8, _ b: Int16x8) -> UInt8x16 {
    #if arch(x86_64)
    return unsafeBitCast(_mm_packus_epi16(unsafeBitCast(a, to: __m128i.self), unsafeBitCast(b, to: __m128i.self)), to: UInt8x16.self)
    #else
    var result = UInt8x16()
    for i in 0..<8 { result[i] = UInt8(truncatingIfNeeded: min(max(a[i], 0), 255)) }
    for i in 0..<8 { result[i + 8] = UInt8(truncatingIfNeeded: min(max(b[i], 0), 255)) }
    return result
    #endif
}

/// The bytes of `a` and `b` interleaved: `a0 b0 a1 b1 ...`, low half then high half.
#if compiler(>=6.3)
@inline(always)
#else
@inline(__always)
#endif
func interleaveBytes(_ a: UInt8x16, _ b: UInt8x16) -> (UInt8x16, UInt8x16) {
    (UInt8x16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]),
     UInt8x16(a[8], b[8], a[9], b[9], a[10], b[10], a[11], b[11], a[12], b[12], a[13], b[13], a[14], b[14], a[15], b[15]))
}

/// The 16-bit lanes of `a` and `b` interleaved, low half then high half.
#if compiler(>=6.3)
@inline(always)
#else
@inline(__always)
#endif
func interleaveWords(_ a: UInt8x16, _ b: UInt8x16) -> (UInt8x16, UInt8x16) {
    let x = unsafeBitCast(a, to: UInt16x8.self), y = unsafeBitCast(b, to: UInt16x8.self)
    return (unsafeBitCast(UInt16x8(x[0], y[0], x[1], y[1], x[2], y[2], x[3], y[3]), to: UInt8x16.self),
            unsafeBitCast(UInt16x8(x[4], y[4], x[5], y[5], x[6], y[6], x[7], y[7]), to: UInt8x16.self))
}

/// The 32-bit lanes of `a` and `b` interleaved, low half then high half.
#if compiler(>=6.3)
@inline(always)
#else
@inline(__always)
#endif
func interleaveDwords(_ a: UInt8x16, _ b: UInt8x16) -> (UInt8x16, UInt8x16) {
    let x = unsafeBitCast(a, to: SIMD4<UInt32>.self), y = unsafeBitCast(b, to: SIMD4<UInt32>.self)
    return (unsafeBitCast(SIMD4<UInt32>(x[0], y[0], x[1], y[1]), to: UInt8x16.self),
            unsafeBitCast(SIMD4<UInt32>(x[2], y[2], x[3], y[3]), to: UInt8x16.self))
}

/// Products of adjacent lane pairs, summed: `a[2i] * b[2i] + a[2i + 1] * b[2i + 1]`, exact.
#if compiler(>=6.3)
@inline(always)
#else
@inline(__always)
#endif
func multiplyAddPairs(_ a: Int16x8, _ b: Int16x8) -> SIMD4<Int32> {
    #if arch(x86_64)
    return unsafeBitCast(_mm_madd_epi16(unsafeBitCast(a, to: __m128i.self), unsafeBitCast(b, to: __m128i.self)), to: SIMD4<Int32>.self)
    #else
    var result = SIMD4<Int32>()
    for i in 0..<4 { result[i] = Int32(a[2 * i]) &* Int32(b[2 * i]) &+ Int32(a[2 * i + 1]) &* Int32(b[2 * i + 1]) }
    return result
    #endif
}

/// `a`, `b`, `c`, `d` each lane clamped to 0...255, in order: a signed-to-unsigned saturating
/// pack of 32-bit lanes.
#if compiler(>=6.3)
@inline(always)
#else
@inline(__always)
#endif
func packSaturated(_ a: SIMD4<Int32>, _ b: SIMD4<Int32>, _ c: SIMD4<Int32>, _ d: SIMD4<Int32>) -> UInt8x16 {
    #if arch(x86_64)
    // Signed saturation to 16 bits first cannot change a clamp to 0...255.
    func words(_ x: SIMD4<Int32>, _ y: SIMD4<Int32>) -> __m128i { _mm_packs_epi32(unsafeBitCast(x, to: __m128i.self), unsafeBitCast(y, to: __m128i.self)) }
    return unsafeBitCast(_mm_packus_epi16(words(a, b), words(c, d)), to: UInt8x16.self)
    #else
    var result = UInt8x16()
    for i in 0..<4 { result[i] = UInt8(truncatingIfNeeded: min(max(a[i], 0), 255)) }
    for i in 0..<4 { result[i + 4] = UInt8(truncatingIfNeeded: min(max(b[i], 0), 255)) }
    for i in 0..<4 { result[i + 8] = UInt8(truncatingIfNeeded: min(max(c[i], 0), 255)) }
    for i in 0..<4 { result[i + 12] = UInt8(truncatingIfNeeded: min(max(d[i], 0), 255)) }
    return result
    #endif
}
