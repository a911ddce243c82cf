import Testing
@testable import VideoFrames

/// The error bounds, proved by trying every input.
///
/// YUV → RGB: every (Y, V) for R, every (Y, U) for B and every (Y, U, V) for G, in all four
/// colour spaces, through the integer formula both implementations share (the vector kernels
/// equal it bit for bit, see `VectorEquivalenceTests`). Each channel is within 0.57 of the exact
/// real value, so within ±1 of the correctly rounded one; libyuv is off by up to 3.
@Suite("Accuracy against the exact formulas")
struct ConversionAccuracyTests {
    @Test("the constant tables are the documented derivation", arguments: YUVColorSpace.all)
    func tablesMatchDerivation(space: YUVColorSpace) {
        #expect(YUVToRGBCoefficients(space) == YUVToRGBCoefficients.derived(space))
        #expect(RGBToYUVCoefficients(space) == RGBToYUVCoefficients.derived(space))
    }

    struct Bound {
        var worst = 0.0, offByOne = 0, count = 0
        mutating func add(_ ours: UInt8, exact: Double) {
            let clamped = min(max(exact, 0), 255)
            worst = max(worst, abs(Double(ours) - clamped))
            if Double(ours) != (clamped + 0.5).rounded(.down) { offByOne += 1 }
            count += 1
        }
    }

    @Test("YUV → RGB: every input within 0.57 of exact (±1 of rounded)", arguments: YUVColorSpace.all)
    func yuvToRGBExhaustive(space: YUVColorSpace) {
        let k = YUVToRGBCoefficients(space)
        var r = Bound(), g = Bound(), b = Bound()
        var smallest = Int32.max, largest = Int32.min
        // G's exact value split into its three terms, so the 2²⁴ loop stays cheap in debug.
        let greenOfY = (0...255).map { space.rgb(y: Double($0), u: 128, v: 128).y }
        let greenOfU = (0...255).map { space.rgb(y: 0, u: Double($0), v: 128).y - space.rgb(y: 0, u: 128, v: 128).y }
        let greenOfV = (0...255).map { space.rgb(y: 0, u: 128, v: Double($0)).y - space.rgb(y: 0, u: 128, v: 128).y }
        for y in 0...255 {
            let luma = (Int32(y) * Int32(k.yMul)) >> 8
            for c in 0...255 {
                // R depends on (Y, V) only, B on (Y, U) only.
                let pR = ReferenceKernels.bgraPixel(y: UInt8(y), u: 128, v: UInt8(c), k)
                let pB = ReferenceKernels.bgraPixel(y: UInt8(y), u: UInt8(c), v: 128, k)
                r.add(UInt8(truncatingIfNeeded: pR >> 16), exact: space.rgb(y: Double(y), u: 128, v: Double(c)).x)
                b.add(UInt8(truncatingIfNeeded: pB), exact: space.rgb(y: Double(y), u: Double(c), v: 128).z)
                let sums = [luma + ((Int32(c) * Int32(k.rv)) >> 8) + Int32(k.rBias), luma + ((Int32(c) * Int32(k.bu)) >> 8) + Int32(k.bBias)]
                smallest = min(smallest, sums.min()!)
                largest = max(largest, sums.max()!)
                for v in 0...255 {
                    let green = luma - ((Int32(c) * Int32(k.gu)) >> 8) - ((Int32(v) * Int32(k.gv)) >> 8) + Int32(k.gBias)
                    smallest = min(smallest, green)
                    largest = max(largest, green)
                    let ours = UInt8(min(max(green >> 5, 0), 255))
                    g.add(ours, exact: greenOfY[y] + greenOfU[c] + greenOfV[v])
                }
            }
        }
        #expect(r.worst < 0.57 && g.worst < 0.57 && b.worst < 0.57, "worst R \(r.worst) G \(g.worst) B \(b.worst)")
        // The vector kernels compute in Int16: every sum must fit.
        #expect(smallest >= Int32(Int16.min) && largest <= Int32(Int16.max), "sums in \(smallest)...\(largest)")
        #expect(g.count == 1 << 24)
        // Off by one from the correctly rounded value for a few percent of inputs only.
        #expect(Double(g.offByOne) / Double(g.count) < 0.03 && Double(r.offByOne) / Double(r.count) < 0.03)
    }

    @Test("RGB → YUV: dense colours within 0.52 of exact", arguments: YUVColorSpace.all)
    func rgbToYUVDense(space: YUVColorSpace) throws {
        // Every third level of each channel: 86³ colours, each a flat 2x2 block.
        let levels = Array(stride(from: 0, through: 255, by: 3))
        let columns = levels.count * levels.count
        var source = TestFrame(.bgra, width: 2 * columns, height: 2 * levels.count)
        for (ri, red) in levels.enumerated() {
            for (gi, green) in levels.enumerated() {
                for (bi, blue) in levels.enumerated() {
                    for dy in 0..<2 {
                        for dx in 0..<2 {
                            let o = (2 * ri + dy) * source.strides[0] + 4 * (2 * (gi * levels.count + bi) + dx)
                            source.planes[0][o..<(o + 4)] = [UInt8(blue), UInt8(green), UInt8(red), 255]
                        }
                    }
                }
            }
        }
        let out = try source.converted(to: .i420, with: FrameConverter(colorSpace: space, implementation: .vectorized, parallelism: .automatic))
        var worst = SIMD3<Double>(repeating: 0)
        for (ri, red) in levels.enumerated() {
            for (gi, green) in levels.enumerated() {
                for (bi, blue) in levels.enumerated() {
                    let cx = gi * levels.count + bi
                    let exact = space.yuv(r: Double(red), g: Double(green), b: Double(blue))
                    let ours = SIMD3(Double(out.sample(plane: 0, x: 2 * cx, y: 2 * ri)), Double(out.sample(plane: 1, x: cx, y: ri)), Double(out.sample(plane: 2, x: cx, y: ri)))
                    let clamped = exact.replacing(with: 0, where: exact .< 0).replacing(with: 255, where: exact .> 255)
                    let difference = ours - clamped
                    worst = pointwiseMax(worst, pointwiseMax(difference, -difference))
                }
            }
        }
        #expect(worst.max() < 0.52, "worst Y \(worst.x) U \(worst.y) V \(worst.z)")
    }
}
