/// The vector BGRA → I420 converter: 16 pixels of two rows per step, the 8 chroma samples of
/// their 2x2 blocks from the same loads.
///
/// It computes exactly ``RGBToYUVCoefficients``'s formula in 16-bit lanes, so its output equals
/// ``ReferenceKernels`` byte for byte; blocks right of the last multiple of 16 pixels, and the
/// last row of an odd height, are done by the reference itself.
enum BGRAToI420Kernel {
    /// The coefficients splatted across lanes.
    struct Constants {
        let yr: UInt16x8, yg: UInt16x8, yb: UInt16x8
        let ur: UInt16x8, ug: UInt16x8, ub: UInt16x8
        let vr: UInt16x8, vg: UInt16x8, vb: UInt16x8
        let yBias: Int16x8

        init(_ k: RGBToYUVCoefficients) {
            (yr, yg, yb) = (UInt16x8(repeating: k.yr), UInt16x8(repeating: k.yg), UInt16x8(repeating: k.yb))
            (ur, ug, ub) = (UInt16x8(repeating: k.ur), UInt16x8(repeating: k.ug), UInt16x8(repeating: k.ub))
            (vr, vg, vb) = (UInt16x8(repeating: k.vr), UInt16x8(repeating: k.vg), UInt16x8(repeating: k.vb))
            yBias = Int16x8(repeating: Int16(k.yOffset) * 128 + 64)
        }
    }

    /// One row's 16 pixels split into channels.
    struct Channels {
        var r: UInt8x16
        var g: UInt8x16
        var b: UInt8x16
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
            let s1 = s0 + source.plane0.stride
            let y0 = destination.plane0.bytes.baseAddress! + row0 * destination.plane0.stride
            let y1 = y0 + destination.plane0.stride
            let u = destination.plane1.bytes.baseAddress! + chromaRow * destination.plane1.stride
            let v = destination.plane2.bytes.baseAddress! + chromaRow * destination.plane2.stride
            var x = 0
            while x < vectorWidth {
                let top = channels(s0 + 4 &* x), bottom = channels(s1 + 4 &* x)
                y0.storeBytes(of: luma(top, c), toByteOffset: x, as: UInt8x16.self)
                y1.storeBytes(of: luma(bottom, c), toByteOffset: x, as: UInt8x16.self)
                let sums = (r: blockSums(top.r, bottom.r), g: blockSums(top.g, bottom.g), b: blockSums(top.b, bottom.b))
                let uTerms = UInt16x8(repeating: 16448) &+ unsigned(multiplyHigh(sums.b, c.ub)) &- unsigned(multiplyHigh(sums.r, c.ur)) &- unsigned(multiplyHigh(sums.g, c.ug))
                let vTerms = UInt16x8(repeating: 16448) &+ unsigned(multiplyHigh(sums.r, c.vr)) &- unsigned(multiplyHigh(sums.g, c.vg)) &- unsigned(multiplyHigh(sums.b, c.vb))
                // Up to 32768 >> 7 = 256: the saturating pack makes it 255.
                let packed = packSaturated(signed(uTerms &>> 7), signed(vTerms &>> 7))
                u.storeBytes(of: packed.lowHalf, toByteOffset: x &>> 1, as: SIMD8<UInt8>.self)
                v.storeBytes(of: packed.highHalf, toByteOffset: x &>> 1, as: SIMD8<UInt8>.self)
                x &+= 16
            }
            ReferenceKernels.bgraToI420(source, destination, k, chromaRow: chromaRow, chromaColumns: (vectorWidth / 2)..<chromaWidth)
        }
    }

    /// The B, G and R bytes of 16 BGRA pixels at `pixels`.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func channels(_ pixels: UnsafeRawPointer) -> Channels {
        let (a, b) = (pixels.loadUnaligned(as: UInt8x16.self), pixels.loadUnaligned(fromByteOffset: 16, as: UInt8x16.self))
        let (c, d) = (pixels.loadUnaligned(fromByteOffset: 32, as: UInt8x16.self), pixels.loadUnaligned(fromByteOffset: 48, as: UInt8x16.self))
        let (blueRed0, greenAlpha0) = deinterleaveBytes(a, b)
        let (blueRed1, greenAlpha1) = deinterleaveBytes(c, d)
        let (blue, red) = deinterleaveBytes(blueRed0, blueRed1)
        let (green, _) = deinterleaveBytes(greenAlpha0, greenAlpha1)
        return Channels(r: red, g: green, b: blue)
    }

    /// The 16 luma bytes of one row's channels.
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func luma(_ p: Channels, _ c: Constants) -> UInt8x16 {
        // X << 7 is the high-byte form shifted right by one.
        let low = multiplyHigh(highBytesOfLow(p.r) &>> 1, c.yr) &+ multiplyHigh(highBytesOfLow(p.g) &>> 1, c.yg)
            &+ multiplyHigh(highBytesOfLow(p.b) &>> 1, c.yb) &+ c.yBias
        let high = multiplyHigh(highBytesOfHigh(p.r) &>> 1, c.yr) &+ multiplyHigh(highBytesOfHigh(p.g) &>> 1, c.yg)
            &+ multiplyHigh(highBytesOfHigh(p.b) &>> 1, c.yb) &+ c.yBias
        return packSaturated(low &>> 7, high &>> 7)
    }

    /// The sums of the 2x2 blocks of two rows of one channel, times 32 (`ΣX << 5`).
    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func blockSums(_ top: UInt8x16, _ bottom: UInt8x16) -> UInt16x8 {
        // As 16-bit lanes each holds a horizontal pair: low byte + high byte is the pair's sum.
        let t = unsafeBitCast(top, to: UInt16x8.self), b = unsafeBitCast(bottom, to: UInt16x8.self)
        return ((t & 0xFF) &+ (t &>> 8) &+ (b & 0xFF) &+ (b &>> 8)) &<< 5
    }

    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func unsigned(_ x: Int16x8) -> UInt16x8 { unsafeBitCast(x, to: UInt16x8.self) }

    #if compiler(>=6.3)
    @inline(always)
    #else
    @inline(__always)
    #endif
    static func signed(_ x: UInt16x8) -> Int16x8 { unsafeBitCast(x, to: Int16x8.self) }
}
