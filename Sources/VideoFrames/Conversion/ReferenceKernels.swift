/// The scalar reference converters: one pixel at a time, the integer formulas of
/// ``YUVToRGBCoefficients`` and ``RGBToYUVCoefficients`` written as plainly as possible.
///
/// The vector kernels must produce exactly these bytes (tests compare them bit for bit), and the
/// vector kernels use these for the pixels at the right edge that do not fill a vector.
enum ReferenceKernels {
    // MARK: YUV → BGRA

    /// One BGRA pixel, as a little-endian `UInt32` (B in the low byte, A = 255).
    @inline(__always)
    static func bgraPixel(y: UInt8, u: UInt8, v: UInt8, _ k: YUVToRGBCoefficients) -> UInt32 {
        let luma = (Int32(y) * Int32(k.yMul)) >> 8
        let r = luma + ((Int32(v) * Int32(k.rv)) >> 8) + Int32(k.rBias)
        let g = luma - ((Int32(u) * Int32(k.gu)) >> 8) - ((Int32(v) * Int32(k.gv)) >> 8) + Int32(k.gBias)
        let b = luma + ((Int32(u) * Int32(k.bu)) >> 8) + Int32(k.bBias)
        return clamp8(b >> 5) | clamp8(g >> 5) << 8 | clamp8(r >> 5) << 16 | 0xFF00_0000
    }

    @inline(__always)
    static func clamp8(_ value: Int32) -> UInt32 { UInt32(min(max(value, 0), 255)) }

    /// Converts the luma rows of chroma rows `chromaRows` of an I420 or NV12 frame to BGRA.
    static func yuvToBGRA(_ source: VideoFrame, _ destination: MutableVideoFrame, _ k: YUVToRGBCoefficients, chromaRows: Range<Int>) {
        let yPlane = source.plane0, dPlane = destination.plane0
        let interleaved = source.format == .nv12
        for chromaRow in chromaRows {
            let uRow = source.plane1.bytes.baseAddress! + chromaRow * source.plane1.stride
            let vRow = interleaved ? uRow + 1 : source.plane2.bytes.baseAddress! + chromaRow * source.plane2.stride
            let chromaStep = interleaved ? 2 : 1
            for row in (2 * chromaRow)..<min(2 * chromaRow + 2, source.height) {
                let yRow = yPlane.bytes.baseAddress! + row * yPlane.stride
                let dRow = dPlane.bytes.baseAddress! + row * dPlane.stride
                for x in 0..<source.width {
                    let chroma = (x / 2) * chromaStep
                    let pixel = bgraPixel(y: yRow.load(fromByteOffset: x, as: UInt8.self),
                                          u: uRow.load(fromByteOffset: chroma, as: UInt8.self),
                                          v: vRow.load(fromByteOffset: chroma, as: UInt8.self), k)
                    dRow.storeBytes(of: pixel.littleEndian, toByteOffset: 4 * x, as: UInt32.self)
                }
            }
        }
    }

    // MARK: BGRA → I420

    /// Converts the rows of chroma rows `chromaRows` of a BGRA frame to I420.
    static func bgraToI420(_ source: VideoFrame, _ destination: MutableVideoFrame, _ k: RGBToYUVCoefficients, chromaRows: Range<Int>) {
        for chromaRow in chromaRows {
            bgraToI420(source, destination, k, chromaRow: chromaRow, chromaColumns: 0..<PixelFormat.chromaSize(source.width))
        }
    }

    /// Converts the 2x2 blocks `chromaColumns` of chroma row `chromaRow`: their Y, U and V.
    static func bgraToI420(_ source: VideoFrame, _ destination: MutableVideoFrame, _ k: RGBToYUVCoefficients, chromaRow: Int, chromaColumns: Range<Int>) {
        let sPlane = source.plane0, yPlane = destination.plane0
        let rows = (2 * chromaRow)..<min(2 * chromaRow + 2, source.height)
        let uRow = destination.plane1.bytes.baseAddress! + chromaRow * destination.plane1.stride
        let vRow = destination.plane2.bytes.baseAddress! + chromaRow * destination.plane2.stride
        for chromaX in chromaColumns {
            let columns = (2 * chromaX)..<min(2 * chromaX + 2, source.width)
            var sum = SIMD3<Int32>(repeating: 0)
            for row in rows {
                let sRow = sPlane.bytes.baseAddress! + row * sPlane.stride
                let yRow = yPlane.bytes.baseAddress! + row * yPlane.stride
                for x in columns {
                    let b = Int32(sRow.load(fromByteOffset: 4 * x, as: UInt8.self))
                    let g = Int32(sRow.load(fromByteOffset: 4 * x + 1, as: UInt8.self))
                    let r = Int32(sRow.load(fromByteOffset: 4 * x + 2, as: UInt8.self))
                    yRow.storeBytes(of: k.luma(b: b, g: g, r: r), toByteOffset: x, as: UInt8.self)
                    sum &+= SIMD3(b, g, r)
                }
            }
            // A block cut by an odd edge still counts as four times an average.
            sum &*= Int32(4 / (rows.count * columns.count))
            let (u, v) = k.chroma(b: sum.x, g: sum.y, r: sum.z)
            uRow.storeBytes(of: u, toByteOffset: chromaX, as: UInt8.self)
            vRow.storeBytes(of: v, toByteOffset: chromaX, as: UInt8.self)
        }
    }

    // MARK: I420 → NV12

    /// Copies the luma rows and interleaves the chroma of chroma rows `chromaRows`.
    static func i420ToNV12(_ source: VideoFrame, _ destination: MutableVideoFrame, chromaRows: Range<Int>) {
        let width = source.width
        for chromaRow in chromaRows {
            for row in (2 * chromaRow)..<min(2 * chromaRow + 2, source.height) {
                let from = source.plane0.bytes.baseAddress! + row * source.plane0.stride
                let to = destination.plane0.bytes.baseAddress! + row * destination.plane0.stride
                for x in 0..<width { to.storeBytes(of: from.load(fromByteOffset: x, as: UInt8.self), toByteOffset: x, as: UInt8.self) }
            }
            let uRow = source.plane1.bytes.baseAddress! + chromaRow * source.plane1.stride
            let vRow = source.plane2.bytes.baseAddress! + chromaRow * source.plane2.stride
            let uvRow = destination.plane1.bytes.baseAddress! + chromaRow * destination.plane1.stride
            for x in 0..<PixelFormat.chromaSize(width) {
                uvRow.storeBytes(of: uRow.load(fromByteOffset: x, as: UInt8.self), toByteOffset: 2 * x, as: UInt8.self)
                uvRow.storeBytes(of: vRow.load(fromByteOffset: x, as: UInt8.self), toByteOffset: 2 * x + 1, as: UInt8.self)
            }
        }
    }
}
