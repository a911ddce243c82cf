/// The vector I420 / NV12 → BGRA converter: 16 pixels of a row per step. (On x86-64 CPUs with
/// AVX2 the 32-pixel C kernel of `CVideoFramesAVX2` runs instead, see `AVX2Kernels`.)
///
/// It computes exactly ``YUVToRGBCoefficients``'s formula in 16-bit lanes, so its output equals
/// ``ReferenceKernels`` byte for byte; the pixels right of the last multiple of 16 are done by
/// the reference itself.
///
/// Layout: the 16 luma bytes are read as 8 16-bit lanes, so lane `i` holds pixels `2i` (low
/// byte) and `2i + 1` (high byte), the two pixels of chroma sample `i`. Even and odd pixels are
/// computed in separate vectors against the same chroma terms (no chroma duplication), and
/// interleaved back while packing to BGRA.
///
/// Rows are converted one at a time, chroma terms recomputed for each row of a pair: measured
/// on frames that do not fit in cache, converting two rows at once (sharing the chroma terms)
/// was about 1.6 times slower, as the extra write stream defeats the hardware's streaming.
enum YUVToBGRAKernel {
    /// The coefficients splatted across lanes, made once per conversion.
    struct Constants {
        let scalar: YUVToRGBCoefficients
        let yMul: UInt16x8, rv: UInt16x8, gu: UInt16x8, gv: UInt16x8, bu: UInt16x8
        let rBias: Int16x8, gBias: Int16x8, bBias: Int16x8

        init(_ k: YUVToRGBCoefficients) {
            scalar = k
            (yMul, rv, gu, gv, bu) = (UInt16x8(repeating: k.yMul), UInt16x8(repeating: k.rv), UInt16x8(repeating: k.gu), UInt16x8(repeating: k.gv), UInt16x8(repeating: k.bu))
            (rBias, gBias, bBias) = (Int16x8(repeating: k.rBias), Int16x8(repeating: k.gBias), Int16x8(repeating: k.bBias))
        }
    }

    /// The R, G and B chroma terms (bias included) of 8 chroma samples.
    struct ChromaTerms {
        var r: Int16x8
        var g: Int16x8
        var b: Int16x8
    }

    /// Converts the luma rows of chroma rows `chromaRows`.
    static func convert(_ source: VideoFrame, _ destination: MutableVideoFrame, _ constants: Constants, chromaRows: Range<Int>) {
        let width = source.width
        let rows = (2 * chromaRows.lowerBound)..<min(2 * chromaRows.upperBound, source.height)
        let vectorWidth = width & ~15
        let interleaved = source.format == .nv12
        for row in rows {
            let y = source.plane0.bytes.baseAddress! + row * source.plane0.stride
            let d = destination.plane0.bytes.baseAddress! + row * destination.plane0.stride
            let u = source.plane1.bytes.baseAddress! + (row / 2) * source.plane1.stride
            let v = interleaved ? u + 1 : source.plane2.bytes.baseAddress! + (row / 2) * source.plane2.stride
            if interleaved {
                convertNV12Row(y, uv: u, d, vectorWidth: vectorWidth, constants)
            } else {
                convertI420Row(y, u: u, v: v, d, vectorWidth: vectorWidth, constants)
            }
            for x in vectorWidth..<width {
                let chroma = (x / 2) * (interleaved ? 2 : 1)
                let pixel = ReferenceKernels.bgraPixel(y: y.load(fromByteOffset: x, as: UInt8.self), u: u.load(fromByteOffset: chroma, as: UInt8.self),
                                                       v: v.load(fromByteOffset: chroma, as: UInt8.self), constants.scalar)
                d.storeBytes(of: pixel.littleEndian, toByteOffset: 4 * x, as: UInt32.self)
            }
        }
    }

    // MARK: Rows

    /// Pixels `0..<vectorWidth` of a row with I420 chroma rows `u` and `v`.
    static func convertI420Row(_ y: UnsafeRawPointer, u: UnsafeRawPointer, v: UnsafeRawPointer, _ d: UnsafeMutableRawPointer, vectorWidth: Int, _ c: Constants) {
        var x = 0
        while x < vectorWidth {
            let u8 = UInt8x16(lowHalf: u.loadUnaligned(fromByteOffset: x &>> 1, as: SIMD8<UInt8>.self), highHalf: .zero)
            let v8 = UInt8x16(lowHalf: v.loadUnaligned(fromByteOffset: x &>> 1, as: SIMD8<UInt8>.self), highHalf: .zero)
            convert16(y + x, d + 4 &* x, chromaTerms(uHigh: highBytesOfLow(u8), vHigh: highBytesOfLow(v8), c), c)
            x &+= 16
        }
    }

    /// Pixels `0..<vectorWidth` of a row with the NV12 chroma row `uv`.
    static func convertNV12Row(_ y: UnsafeRawPointer, uv: UnsafeRawPointer, _ d: UnsafeMutableRawPointer, vectorWidth: Int, _ c: Constants) {
        var x = 0
        while x < vectorWidth {
            // Lane i holds U | V << 8 of chroma sample i: U << 8 and V << 8 are two bit operations.
            let pairs = uv.loadUnaligned(fromByteOffset: x, as: UInt16x8.self)
            convert16(y + x, d + 4 &* x, chromaTerms(uHigh: pairs &<< 8, vHigh: pairs & 0xFF00, c), c)
            x &+= 16
        }
    }

    /// The chroma terms of 8 samples given as `U << 8` and `V << 8`.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func chromaTerms(uHigh: UInt16x8, vHigh: UInt16x8, _ c: Constants) -> ChromaTerms {
        ChromaTerms(r: multiplyHigh(vHigh, c.rv) &+ c.rBias,
                    g: c.gBias &- multiplyHigh(uHigh, c.gu) &- multiplyHigh(vHigh, c.gv),
                    b: multiplyHigh(uHigh, c.bu) &+ c.bBias)
    }

    /// 16 pixels: 16 luma bytes at `y`, 64 BGRA bytes to `destination`.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func convert16(_ y: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ t: ChromaTerms, _ c: Constants) {
        let pairs = y.loadUnaligned(as: UInt16x8.self)
        let even = multiplyHigh(pairs &<< 8, c.yMul), odd = multiplyHigh(pairs & 0xFF00, c.yMul)
        // Each channel: even pixels' bytes, then odd pixels' bytes.
        let r = packSaturated((even &+ t.r) &>> 5, (odd &+ t.r) &>> 5)
        let g = packSaturated((even &+ t.g) &>> 5, (odd &+ t.g) &>> 5)
        let b = packSaturated((even &+ t.b) &>> 5, (odd &+ t.b) &>> 5)
        let (bgEven, bgOdd) = interleaveBytes(b, g)
        let (raEven, raOdd) = interleaveBytes(r, UInt8x16(repeating: 255))
        let (even0, even1) = interleaveWords(bgEven, raEven)
        let (odd0, odd1) = interleaveWords(bgOdd, raOdd)
        let (p0, p1) = interleaveDwords(even0, odd0)
        let (p2, p3) = interleaveDwords(even1, odd1)
        destination.storeBytes(of: p0, toByteOffset: 0, as: UInt8x16.self)
        destination.storeBytes(of: p1, toByteOffset: 16, as: UInt8x16.self)
        destination.storeBytes(of: p2, toByteOffset: 32, as: UInt8x16.self)
        destination.storeBytes(of: p3, toByteOffset: 48, as: UInt8x16.self)
    }
}
