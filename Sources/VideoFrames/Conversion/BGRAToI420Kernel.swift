/// The vector BGRA → I420 converter: 16 pixels of two rows per step, with the 8 chroma samples
/// of their 2x2 blocks from the same loads.
///
/// It computes exactly ``RGBToYUVCoefficients``'s formula, so its output equals
/// ``ReferenceKernels`` byte for byte; blocks right of the last multiple of 16 pixels, and the
/// last row of an odd height, are done by the reference itself.
///
/// Layout: 4 pixels read as 8 16-bit lanes hold B|G<<8, R|A<<8 per pixel, so masking gives
/// `[B, R, B, R, ...]`, and shifting then duplicating `[G, G, ...]`; a pairwise multiply-add
/// against `[yb, yr, ...]` and `[yg − yg/2, yg/2, ...]` then yields each pixel's luma sum in one
/// 32-bit lane. For chroma the two rows are added, then the two pixels of each block (as the
/// halves of a 64-bit lane), leaving `[ΣB, ΣR]` and `[ΣG, ΣG]` per block for the same
/// multiply-adds.
///
/// Speed: every multiply-add is one `pmaddwd` on x86-64 (see `SIMDLanes.swift`); this path runs
/// at about 1.9x the time of libyuv's 128-bit code and 3.3x its AVX2 code (hot cache, one
/// thread; it is the custom-video-source direction, off the Picture in Picture path). On x86-64
/// CPUs with AVX2 the C kernel of `CVideoFramesAVX2` runs instead (see `AVX2Kernels`).
enum BGRAToI420Kernel {
    /// The coefficients laid out for the multiply-adds, made once per conversion.
    struct Constants {
        let k: RGBToYUVCoefficients
        let yBlueRed: Int16x8, yGreen: Int16x8, yBias: SIMD4<Int32>
        let uBlueRed: Int16x8, uGreen: Int16x8, vBlueRed: Int16x8, vGreen: Int16x8, chromaBias: SIMD4<Int32>

        init(_ k: RGBToYUVCoefficients) {
            self.k = k
            yBlueRed = Int16x8(k.yb, k.yr, k.yb, k.yr, k.yb, k.yr, k.yb, k.yr)
            // Green comes in twice per pixel ([G, G]), its coefficient split over both lanes: with
            // a zero in one lane the compiler drops that product and no longer emits `pmaddwd`.
            yGreen = Self.split(k.yg)
            yBias = SIMD4(repeating: k.lumaBias)
            // Chroma lanes after the block sums: [ΣB, ΣR, …, …] and [ΣG, ΣG, …, …] per block, the
            // leftover lanes weighted zero.
            uBlueRed = Int16x8(k.ub, -k.ur, 0, 0, k.ub, -k.ur, 0, 0)
            uGreen = Self.halves(-k.ug)
            vBlueRed = Int16x8(-k.vb, k.vr, 0, 0, -k.vb, k.vr, 0, 0)
            vGreen = Self.halves(-k.vg)
            chromaBias = SIMD4(repeating: RGBToYUVCoefficients.chromaBias)
        }

        /// `c` split over the two lanes of each block, leftover lanes zero.
        static func halves(_ c: Int16) -> Int16x8 {
            let half = c / 2, rest = c - c / 2
            return Int16x8(rest, half, 0, 0, rest, half, 0, 0)
        }

        /// `c` as two halves per lane pair: `[c − c / 2, c / 2, ...]`.
        static func split(_ c: Int16) -> Int16x8 {
            let half = c / 2, rest = c - c / 2
            return Int16x8(rest, half, rest, half, rest, half, rest, half)
        }
    }

    /// Converts chroma rows `chromaRows` and the luma rows they cover.
    static func convert(_ source: VideoFrame, _ destination: MutableVideoFrame, _ k: RGBToYUVCoefficients, chromaRows: Range<Int>) {
        let c = Constants(k)
        let width = source.width, chromaWidth = PixelFormat.chromaSize(width)
        let vectorWidth = width & ~15
        for chromaRow in chromaRows {
            let row0 = 2 * chromaRow
            guard row0 + 1 < source.height else {
                ReferenceKernels.bgraToI420(source, destination, k, chromaRow: chromaRow, chromaColumns: 0..<chromaWidth)
                continue
            }
            let s0 = source.plane0.bytes.baseAddress! + row0 * source.plane0.stride
            let y0 = destination.plane0.bytes.baseAddress! + row0 * destination.plane0.stride
            let u = destination.plane1.bytes.baseAddress! + chromaRow * destination.plane1.stride
            let v = destination.plane2.bytes.baseAddress! + chromaRow * destination.plane2.stride
            convertRows(s0, s0 + source.plane0.stride, y0, y0 + destination.plane0.stride, u: u, v: v, vectorWidth: vectorWidth, c)
            ReferenceKernels.bgraToI420(source, destination, k, chromaRow: chromaRow, chromaColumns: (vectorWidth / 2)..<chromaWidth)
        }
    }

    /// Pixels `0..<vectorWidth` of two rows and their chroma.
    static func convertRows(_ s0: UnsafeRawPointer, _ s1: UnsafeRawPointer, _ y0: UnsafeMutableRawPointer, _ y1: UnsafeMutableRawPointer,
                            u: UnsafeMutableRawPointer, v: UnsafeMutableRawPointer, vectorWidth: Int, _ c: Constants) {
        var x = 0
        while x < vectorWidth {
            let g0 = group(s0, s1, 4 &* x, c), g1 = group(s0, s1, 4 &* x &+ 16, c)
            let g2 = group(s0, s1, 4 &* x &+ 32, c), g3 = group(s0, s1, 4 &* x &+ 48, c)
            y0.storeBytes(of: packSaturated(g0.luma0, g1.luma0, g2.luma0, g3.luma0), toByteOffset: x, as: UInt8x16.self)
            y1.storeBytes(of: packSaturated(g0.luma1, g1.luma1, g2.luma1, g3.luma1), toByteOffset: x, as: UInt8x16.self)
            // Each group's 2 blocks sit in lanes 0 and 2 of its U (V) vector.
            let chroma = packSaturated(SIMD4(g0.u[0], g0.u[2], g1.u[0], g1.u[2]), SIMD4(g2.u[0], g2.u[2], g3.u[0], g3.u[2]),
                                       SIMD4(g0.v[0], g0.v[2], g1.v[0], g1.v[2]), SIMD4(g2.v[0], g2.v[2], g3.v[0], g3.v[2]))
            u.storeBytes(of: chroma.lowHalf, toByteOffset: x &>> 1, as: SIMD8<UInt8>.self)
            v.storeBytes(of: chroma.highHalf, toByteOffset: x &>> 1, as: SIMD8<UInt8>.self)
            x &+= 16
        }
    }

    /// The results of 4 pixels of each row: their lumas, and the U and V of their 2 blocks (in
    /// lanes 0 and 2).
    struct Group {
        var luma0: SIMD4<Int32>
        var luma1: SIMD4<Int32>
        var u: SIMD4<Int32>
        var v: SIMD4<Int32>
    }

    /// Converts the 4 pixels at `offset` bytes into both rows.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func group(_ s0: UnsafeRawPointer, _ s1: UnsafeRawPointer, _ offset: Int, _ c: Constants) -> Group {
        let top = s0.loadUnaligned(fromByteOffset: offset, as: UInt16x8.self)
        let bottom = s1.loadUnaligned(fromByteOffset: offset, as: UInt16x8.self)
        let (topBlueRed, topGreen) = (signed(top & 0xFF), greenTwice(top))
        let (bottomBlueRed, bottomGreen) = (signed(bottom & 0xFF), greenTwice(bottom))
        let blueRed = pairSums(topBlueRed &+ bottomBlueRed), green = pairSums(topGreen &+ bottomGreen)
        return Group(
            luma0: (multiplyAddPairs(topBlueRed, c.yBlueRed) &+ multiplyAddPairs(topGreen, c.yGreen) &+ c.yBias) &>> 15,
            luma1: (multiplyAddPairs(bottomBlueRed, c.yBlueRed) &+ multiplyAddPairs(bottomGreen, c.yGreen) &+ c.yBias) &>> 15,
            u: (multiplyAddPairs(blueRed, c.uBlueRed) &+ multiplyAddPairs(green, c.uGreen) &+ c.chromaBias) &>> 17,
            v: (multiplyAddPairs(blueRed, c.vBlueRed) &+ multiplyAddPairs(green, c.vGreen) &+ c.chromaBias) &>> 17)
    }

    /// `[x0 + x2, x1 + x3, 0, 0, x4 + x6, x5 + x7, 0, 0]`: the two pixels of each block added,
    /// as the 32-bit halves of a 64-bit lane (sums stay below 2¹⁶, so no carry crosses lanes).
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func pairSums(_ x: Int16x8) -> Int16x8 {
        let wide = unsafeBitCast(x, to: SIMD2<UInt64>.self)
        return unsafeBitCast((wide & 0xFFFF_FFFF) &+ (wide &>> 32), to: Int16x8.self)
    }

    /// `[G, G]` per pixel from lanes `[B | G << 8, R | A << 8]`.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func greenTwice(_ x: UInt16x8) -> Int16x8 {
        let green = signed(x &>> 8)
        return Int16x8(green[0], green[0], green[2], green[2], green[4], green[4], green[6], green[6])
    }

    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func signed(_ x: UInt16x8) -> Int16x8 { unsafeBitCast(x, to: Int16x8.self) }
}
