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
///     Y = min(((R * yr) >> 9 + (G * yg) >> 9 + (B * yb) >> 9 + yOffset * 128 + 64) >> 7, 255)
///     U = min((16448 + (ΣB * ub) >> 11 - (ΣR * ur) >> 11 - (ΣG * ug) >> 11) >> 7, 255)
///     V = min((16448 + (ΣR * vr) >> 11 - (ΣG * vg) >> 11 - (ΣB * vb) >> 11) >> 7, 255)
///
/// `ΣR` is the sum of R over the 2x2 block a chroma sample covers (a block cut by an odd edge
/// counts its pixels twice or four times, so it is still four times an average). The
/// coefficients are the magnitudes of the exact ones times 2¹⁶, rounded; every term keeps 7
/// fractional bits, 16448 is 128.5 in those units. Every intermediate value lies in 0...32768,
/// so the vector kernels compute in unsigned 16-bit lanes (`(X * c) >> 9` is a high multiply of
/// `X << 7`, `(ΣX * c) >> 11` one of `ΣX << 5`). Every result is within 0.52 of the exact value.
struct RGBToYUVCoefficients: Sendable, Hashable {
    var yr: UInt16, yg: UInt16, yb: UInt16
    var ur: UInt16, ug: UInt16, ub: UInt16
    var vr: UInt16, vg: UInt16, vb: UInt16
    /// 16 (limited range) or 0 (full range).
    var yOffset: UInt16

    /// The constants of a colour space.
    init(_ space: YUVColorSpace) {
        switch (space.matrix, space.range) {
        case (.bt601, .limited): self = .init(16829, 33039, 6416, 9714, 19071, 28784, 28784, 24103, 4681, 16)
        case (.bt601, .full): self = .init(19595, 38470, 7471, 11058, 21710, 32768, 32768, 27439, 5329, 0)
        case (.bt709, .limited): self = .init(11966, 40254, 4064, 6596, 22189, 28784, 28784, 26145, 2639, 16)
        case (.bt709, .full): self = .init(13933, 46871, 4732, 7509, 25259, 32768, 32768, 29763, 3005, 0)
        }
    }

    init(_ yr: UInt16, _ yg: UInt16, _ yb: UInt16, _ ur: UInt16, _ ug: UInt16, _ ub: UInt16, _ vr: UInt16, _ vg: UInt16, _ vb: UInt16, _ yOffset: UInt16) {
        (self.yr, self.yg, self.yb) = (yr, yg, yb)
        (self.ur, self.ug, self.ub) = (ur, ug, ub)
        (self.vr, self.vg, self.vb) = (vr, vg, vb)
        self.yOffset = yOffset
    }

    /// The constants derived from the exact coefficients, as documented above; tests check
    /// that the table matches.
    static func derived(_ space: YUVColorSpace) -> RGBToYUVCoefficients {
        let (kr, kb, kg) = (space.matrix.kr, space.matrix.kb, space.matrix.kg)
        let ys = 1 / space.lumaScale, cs = 1 / space.chromaScale
        func q(_ c: Double) -> UInt16 { UInt16((c * 65536).rounded()) }
        return RGBToYUVCoefficients(
            q(ys * kr), q(ys * kg), q(ys * kb),
            q(cs * kr / (2 * (1 - kb))), q(cs * kg / (2 * (1 - kb))), q(cs * 0.5),
            q(cs * 0.5), q(cs * kg / (2 * (1 - kr))), q(cs * kb / (2 * (1 - kr))),
            UInt16(space.lumaOffset))
    }
}
