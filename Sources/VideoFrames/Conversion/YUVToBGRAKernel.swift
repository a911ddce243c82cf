/// The vector I420 / NV12 → BGRA converter: 16 pixels of two rows per step, sharing one
/// computation of their chroma terms.
///
/// It computes exactly ``YUVToRGBCoefficients``'s formula in 16-bit lanes, so its output equals
/// ``ReferenceKernels`` byte for byte; the pixels right of the last multiple of 16 are done by
/// the reference itself.
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
        let (width, height) = (source.width, source.height)
        let interleaved = source.format == .nv12
        for chromaRow in chromaRows {
            let row0 = 2 * chromaRow, row1 = min(row0 + 1, height - 1)
            let y0 = source.plane0.bytes.baseAddress! + row0 * source.plane0.stride
            let y1 = source.plane0.bytes.baseAddress! + row1 * source.plane0.stride
            let d0 = destination.plane0.bytes.baseAddress! + row0 * destination.plane0.stride
            let d1 = destination.plane0.bytes.baseAddress! + row1 * destination.plane0.stride
            let u = source.plane1.bytes.baseAddress! + chromaRow * source.plane1.stride
            let vectorWidth = width & ~15
            if interleaved {
                convertNV12Rows(y0, y1, uv: u, d0, d1, vectorWidth: vectorWidth, constants)
            } else {
                let v = source.plane2.bytes.baseAddress! + chromaRow * source.plane2.stride
                convertI420Rows(y0, y1, u: u, v: v, d0, d1, vectorWidth: vectorWidth, constants)
            }
            convertTail(y0, y1, u: u, v: interleaved ? u + 1 : source.plane2.bytes.baseAddress! + chromaRow * source.plane2.stride,
                        chromaStep: interleaved ? 2 : 1, d0, d1, columns: vectorWidth..<width, constants.scalar)
        }
    }

    // MARK: Row pairs

    /// Pixels `0..<vectorWidth` of two rows sharing I420 chroma rows `u` and `v`.
    static func convertI420Rows(_ y0: UnsafeRawPointer, _ y1: UnsafeRawPointer, u: UnsafeRawPointer, v: UnsafeRawPointer,
                                _ d0: UnsafeMutableRawPointer, _ d1: UnsafeMutableRawPointer, vectorWidth: Int, _ c: Constants) {
        var x = 0
        while x < vectorWidth {
            let u8 = UInt8x16(lowHalf: u.loadUnaligned(fromByteOffset: x &>> 1, as: SIMD8<UInt8>.self), highHalf: .zero)
            let v8 = UInt8x16(lowHalf: v.loadUnaligned(fromByteOffset: x &>> 1, as: SIMD8<UInt8>.self), highHalf: .zero)
            let terms = chromaTerms(uHigh: highBytesOfLow(u8), vHigh: highBytesOfLow(v8), c)
            convert16(y0 + x, d0 + 4 &* x, terms, c)
            convert16(y1 + x, d1 + 4 &* x, terms, c)
            x &+= 16
        }
    }

    /// Pixels `0..<vectorWidth` of two rows sharing the NV12 chroma row `uv`.
    static func convertNV12Rows(_ y0: UnsafeRawPointer, _ y1: UnsafeRawPointer, uv: UnsafeRawPointer,
                                _ d0: UnsafeMutableRawPointer, _ d1: UnsafeMutableRawPointer, vectorWidth: Int, _ c: Constants) {
        var x = 0
        while x < vectorWidth {
            // Lane i holds U | V << 8 of chroma sample i: U << 8 and V << 8 are two bit operations.
            let pairs = uv.loadUnaligned(fromByteOffset: x, as: UInt16x8.self)
            let terms = chromaTerms(uHigh: pairs &<< 8, vHigh: pairs & 0xFF00, c)
            convert16(y0 + x, d0 + 4 &* x, terms, c)
            convert16(y1 + x, d1 + 4 &* x, terms, c)
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
    static func convert16(_ y: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ terms: ChromaTerms, _ c: Constants) {
        let luma = y.loadUnaligned(as: UInt8x16.self)
        let low = multiplyHigh(highBytesOfLow(luma), c.yMul), high = multiplyHigh(highBytesOfHigh(luma), c.yMul)
        let r = packSaturated((low &+ duplicateLow(terms.r)) &>> 5, (high &+ duplicateHigh(terms.r)) &>> 5)
        let g = packSaturated((low &+ duplicateLow(terms.g)) &>> 5, (high &+ duplicateHigh(terms.g)) &>> 5)
        let b = packSaturated((low &+ duplicateLow(terms.b)) &>> 5, (high &+ duplicateHigh(terms.b)) &>> 5)
        let (bg0, bg1) = interleaveBytes(b, g)
        let (ra0, ra1) = interleaveBytes(r, UInt8x16(repeating: 255))
        let (p0, p1) = interleaveWords(bg0, ra0)
        let (p2, p3) = interleaveWords(bg1, ra1)
        destination.storeBytes(of: p0, toByteOffset: 0, as: UInt8x16.self)
        destination.storeBytes(of: p1, toByteOffset: 16, as: UInt8x16.self)
        destination.storeBytes(of: p2, toByteOffset: 32, as: UInt8x16.self)
        destination.storeBytes(of: p3, toByteOffset: 48, as: UInt8x16.self)
    }

    /// The pixels `columns` of both rows, with the reference formula.
    static func convertTail(_ y0: UnsafeRawPointer, _ y1: UnsafeRawPointer, u: UnsafeRawPointer, v: UnsafeRawPointer, chromaStep: Int,
                            _ d0: UnsafeMutableRawPointer, _ d1: UnsafeMutableRawPointer, columns: Range<Int>, _ k: YUVToRGBCoefficients) {
        for x in columns {
            let chroma = (x / 2) * chromaStep
            let (uValue, vValue) = (u.load(fromByteOffset: chroma, as: UInt8.self), v.load(fromByteOffset: chroma, as: UInt8.self))
            let p0 = ReferenceKernels.bgraPixel(y: y0.load(fromByteOffset: x, as: UInt8.self), u: uValue, v: vValue, k)
            let p1 = ReferenceKernels.bgraPixel(y: y1.load(fromByteOffset: x, as: UInt8.self), u: uValue, v: vValue, k)
            d0.storeBytes(of: p0.littleEndian, toByteOffset: 4 * x, as: UInt32.self)
            d1.storeBytes(of: p1.littleEndian, toByteOffset: 4 * x, as: UInt32.self)
        }
    }
}
