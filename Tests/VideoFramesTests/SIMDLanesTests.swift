import Testing
@testable import VideoFrames

/// The lane operations the kernels are built from, against their definitions written out per
/// lane here. On x86-64 the packs and the multiply-add are SSE2 instructions; these tests pin
/// that they compute exactly the documented integer results, including the extremes the
/// kernels never reach (full-range 16-bit operands, the one `pmaddwd` sum that wraps).
@Suite("SIMD lane operations")
struct SIMDLanesTests {
    /// Random 16-bit lanes, with the extremes mixed in often.
    static func lanes(_ rng: inout SplitMix64) -> Int16x8 {
        var result = Int16x8()
        for i in 0..<8 {
            switch rng.next() % 8 {
            case 0: result[i] = .min
            case 1: result[i] = .max
            case 2: result[i] = Int16.random(in: -300...300, using: &rng)
            default: result[i] = Int16(truncatingIfNeeded: rng.next())
            }
        }
        return result
    }

    static func clamp(_ value: Int) -> UInt8 { UInt8(min(max(value, 0), 255)) }

    @Test func packSaturated16() {
        var rng = SplitMix64(seed: 21)
        for _ in 0..<20_000 {
            let a = Self.lanes(&rng), b = Self.lanes(&rng)
            let packed = packSaturated(a, b)
            for i in 0..<8 {
                #expect(packed[i] == Self.clamp(Int(a[i])))
                #expect(packed[i + 8] == Self.clamp(Int(b[i])))
            }
        }
    }

    @Test func packSaturated32() {
        var rng = SplitMix64(seed: 22)
        func words() -> SIMD4<Int32> {
            SIMD4((0..<4).map { _ -> Int32 in
                switch rng.next() % 6 {
                case 0: .min
                case 1: .max
                case 2: Int32.random(in: -70_000...70_000, using: &rng)
                default: Int32(truncatingIfNeeded: rng.next())
                }
            })
        }
        for _ in 0..<20_000 {
            let parts = [words(), words(), words(), words()]
            let packed = packSaturated(parts[0], parts[1], parts[2], parts[3])
            for part in 0..<4 {
                for i in 0..<4 { #expect(packed[4 * part + i] == Self.clamp(Int(parts[part][i]))) }
            }
        }
    }

    @Test func multiplyAddPairsWrapsLikeInt32() {
        var rng = SplitMix64(seed: 23)
        for _ in 0..<20_000 {
            let a = Self.lanes(&rng), b = Self.lanes(&rng)
            let sums = multiplyAddPairs(a, b)
            for i in 0..<4 {
                let exact = Int(a[2 * i]) * Int(b[2 * i]) + Int(a[2 * i + 1]) * Int(b[2 * i + 1])
                #expect(sums[i] == Int32(truncatingIfNeeded: exact))
            }
        }
        // The one pair sum beyond Int32: 2 × (−32768)², which wraps to Int32.min.
        let extreme = Int16x8(repeating: .min)
        #expect(multiplyAddPairs(extreme, extreme) == SIMD4(repeating: .min))
    }
}
