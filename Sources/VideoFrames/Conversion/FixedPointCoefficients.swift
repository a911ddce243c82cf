/// The integer formula of YUV → RGB, shared bit for bit by the scalar reference and the
/// vector kernels.
///
/// For 8-bit samples `Y`, `U`, `V`:
///
///     y  = (Y * yMul) >> 8                    // luma term, 5 fractional bits
///     R = clamp((y + ((V * rv) >> 8) + rBias) >> 5)
///     G = clamp((y - ((U * gu) >> 8) - ((V * gv) >> 8) + gBias) >> 5)
///     B = clamp((y + ((U * bu) >> 8) + bBias) >> 5)
///
/// `clamp` is to 0...255 and `>>` is arithmetic. The multipliers are the exact coefficients
/// times 2¹³ rounded, so each product keeps 5 fractional bits of a 13-bit-precise coefficient
/// (libyuv keeps 6 bits of the coefficient itself, hence its errors of up to 3). The biases fold
/// in the offsets (16 and 128 times their coefficients), a half for rounding and the mean of
/// the truncations (+½ per added product, −½ per subtracted one, in 1/32 units).
///
/// Every intermediate value fits in `Int16` (the vector kernels compute in 16-bit lanes; `(X *
/// m) >> 8` is exactly an unsigned high multiply of `X << 8` by `m`). Over all 2²⁴ inputs the
/// result is within 0.57 of the exact real value, so within ±1 of the correctly rounded one,
/// and equal to it for 97–99 % of inputs: see `ConversionAccuracyTests`.
struct YUVToRGBCoefficients: Sendable, Hashable {
    var yMul: UInt16
    var rv: UInt16
    var gu: UInt16
    var gv: UInt16
    var bu: UInt16
    var rBias: Int16
    var gBias: Int16
    var bBias: Int16

    /// The constants of a colour space.
    init(_ space: YUVColorSpace) {
        switch (space.matrix, space.range) {
        case (.bt601, .limited): self = .init(9539, 13075, 3209, 6660, 16525, -7116, 4354, -8842)
        case (.bt601, .full): self = .init(8192, 11485, 2819, 5850, 14516, -5726, 4350, -7241)
        case (.bt709, .limited): self = .init(9539, 14686, 1747, 4366, 17305, -7922, 2476, -9232)
        case (.bt709, .full): self = .init(8192, 12901, 1535, 3835, 15201, -6433, 2700, -7584)
        }
    }

    init(_ yMul: UInt16, _ rv: UInt16, _ gu: UInt16, _ gv: UInt16, _ bu: UInt16, _ rBias: Int16, _ gBias: Int16, _ bBias: Int16) {
        (self.yMul, self.rv, self.gu, self.gv, self.bu) = (yMul, rv, gu, gv, bu)
        (self.rBias, self.gBias, self.bBias) = (rBias, gBias, bBias)
    }

    /// The constants derived from the colour space's exact coefficients, as documented above;
    /// tests check that the table matches.
    static func derived(_ space: YUVColorSpace) -> YUVToRGBCoefficients {
        let (kr, kb, kg) = (space.matrix.kr, space.matrix.kb, space.matrix.kg)
        let ys = space.lumaScale, yo = space.lumaOffset, cs = space.chromaScale
        let rv = cs * 2 * (1 - kr), gu = cs * 2 * (1 - kb) * kb / kg, gv = cs * 2 * (1 - kr) * kr / kg, bu = cs * 2 * (1 - kb)
        func multiplier(_ c: Double) -> UInt16 { UInt16((c * 8192).rounded()) }
        // 16 is the half for the final rounding; the compensation centres the truncations.
        func bias(_ exact: Double, compensation: Double) -> Int16 { Int16((32 * exact + 16 + compensation + 0.5).rounded(.down)) }
        return YUVToRGBCoefficients(
            multiplier(ys), multiplier(rv), multiplier(gu), multiplier(gv), multiplier(bu),
            bias(-ys * yo - rv * 128, compensation: 0.5 + 0.5),
            bias(-ys * yo + (gu + gv) * 128, compensation: 0.5 - 0.5 - 0.5),
            bias(-ys * yo - bu * 128, compensation: 0.5 + 0.5))
    }
}

/// The integer formula of RGB → YUV, shared bit for bit by the scalar reference and the
/// vector kernels.
///
///     Y = clamp((yb * B + yg * G + yr * R + yOffset << 15 + 2¹⁴) >> 15)
///     U = clamp((ub * ΣB − ug * ΣG − ur * ΣR + 128 << 17 + 2¹⁶) >> 17)
///     V = clamp((vr * ΣR − vg * ΣG − vb * ΣB + 128 << 17 + 2¹⁶) >> 17)
///
/// `ΣR` is the sum of R over the 2x2 block a chroma sample covers (a block cut by an odd edge
/// counts its pixels twice or four times, so it is still four times an average; hence 17 =
/// 15 + 2). The coefficients are the magnitudes of the exact ones times 2¹⁵, rounded, so they
/// fit `Int16`, and the sums are exact in `Int32`: a 16-bit multiply-add of pixel pairs (SSE2
/// `pmaddwd`, NEON `smlal`) computes each one. The only error is the coefficients' rounding:
/// every result is within 0.51 of the exact value.
struct RGBToYUVCoefficients: Sendable, Hashable {
    var yb: Int16, yg: Int16, yr: Int16
    var ub: Int16, ug: Int16, ur: Int16
    var vb: Int16, vg: Int16, vr: Int16
    /// 16 (limited range) or 0 (full range).
    var yOffset: Int32

    /// The constants of a colour space.
    init(_ space: YUVColorSpace) {
        switch (space.matrix, space.range) {
        case (.bt601, .limited): self = .init(3208, 16519, 8414, 14392, 9535, 4857, 2341, 12052, 14392, 16)
        case (.bt601, .full): self = .init(3736, 19235, 9798, 16384, 10855, 5529, 2664, 13720, 16384, 0)
        case (.bt709, .limited): self = .init(2032, 20127, 5983, 14392, 11094, 3298, 1320, 13073, 14392, 16)
        case (.bt709, .full): self = .init(2366, 23436, 6966, 16384, 12630, 3754, 1502, 14882, 16384, 0)
        }
    }

    init(_ yb: Int16, _ yg: Int16, _ yr: Int16, _ ub: Int16, _ ug: Int16, _ ur: Int16, _ vb: Int16, _ vg: Int16, _ vr: Int16, _ yOffset: Int32) {
        (self.yb, self.yg, self.yr) = (yb, yg, yr)
        (self.ub, self.ug, self.ur) = (ub, ug, ur)
        (self.vb, self.vg, self.vr) = (vb, vg, vr)
        self.yOffset = yOffset
    }

    /// The constants derived from the exact coefficients, as documented above; tests check
    /// that the table matches.
    static func derived(_ space: YUVColorSpace) -> RGBToYUVCoefficients {
        let (kr, kb, kg) = (space.matrix.kr, space.matrix.kb, space.matrix.kg)
        let ys = 1 / space.lumaScale, cs = 1 / space.chromaScale
        func q(_ c: Double) -> Int16 { Int16((c * 32768).rounded()) }
        return RGBToYUVCoefficients(
            q(ys * kb), q(ys * kg), q(ys * kr),
            q(cs * 0.5), q(cs * kg / (2 * (1 - kb))), q(cs * kr / (2 * (1 - kb))),
            q(cs * kb / (2 * (1 - kr))), q(cs * kg / (2 * (1 - kr))), q(cs * 0.5),
            Int32(space.lumaOffset))
    }

    /// The constant added to a luma sum: `yOffset << 15` and a half for rounding.
    var lumaBias: Int32 { (yOffset << 15) + (1 << 14) }

    /// The constant added to a chroma sum: `128 << 17` and a half for rounding.
    static let chromaBias: Int32 = (128 << 17) + (1 << 16)

    /// Y of one pixel.
    @inline(__always)
    func luma(b: Int32, g: Int32, r: Int32) -> UInt8 {
        UInt8(clamping: (Int32(yb) * b + Int32(yg) * g + Int32(yr) * r + lumaBias) >> 15)
    }

    /// U and V of a block whose channel sums (four times the average) are `b`, `g`, `r`.
    @inline(__always)
    func chroma(b: Int32, g: Int32, r: Int32) -> (u: UInt8, v: UInt8) {
        let u = Int32(ub) * b - Int32(ug) * g - Int32(ur) * r + Self.chromaBias
        let v = Int32(vr) * r - Int32(vg) * g - Int32(vb) * b + Self.chromaBias
        return (UInt8(clamping: u >> 17), UInt8(clamping: v >> 17))
    }
}
