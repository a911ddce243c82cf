#if arch(x86_64)
import CVideoFramesAVX2

/// The AVX2 kernels of `CVideoFramesAVX2`, called on the frame views. Call only when
/// ``FrameConverter/VectorKernel/selected`` is `.avx2`.
///
/// The constants come from ``YUVToRGBCoefficients`` and ``RGBToYUVCoefficients``, the one
/// definition of the formulas; the C kernels are bit-exact against ``ReferenceKernels``
/// (`VectorEquivalenceTests`), including the right-edge pixels that do not fill a vector.
enum AVX2Kernels {
    /// The C form of the YUV → RGB constants.
    static func cCoefficients(_ k: YUVToRGBCoefficients) -> CVFYUVToRGBCoefficients {
        CVFYUVToRGBCoefficients(y_mul: k.yMul, rv: k.rv, gu: k.gu, gv: k.gv, bu: k.bu, r_bias: k.rBias, g_bias: k.gBias, b_bias: k.bBias)
    }

    /// The C form of the RGB → YUV constants.
    static func cCoefficients(_ k: RGBToYUVCoefficients) -> CVFRGBToYUVCoefficients {
        CVFRGBToYUVCoefficients(yb: k.yb, yg: k.yg, yr: k.yr, ub: k.ub, ug: k.ug, ur: k.ur, vb: k.vb, vg: k.vg, vr: k.vr,
                                luma_bias: k.lumaBias, chroma_bias: RGBToYUVCoefficients.chromaBias)
    }

    /// BGRA destinations of at least this many bytes (720p is 3.5 MiB) may be written around the
    /// cache: more than a core's L2 (1–2 MiB on current x86-64 CPUs), so the frame leaves the
    /// core's caches before anything reads it. Smaller ones always get ordinary stores.
    static let writeAroundCacheBytes = 2 << 20

    /// Whether the YUV → BGRA kernels write `destination` around the cache: when it is large
    /// (``writeAroundCacheBytes``) and was not `recentlyWritten` (``DestinationReuse``), so it
    /// is probably not in cache and is then not read before being overwritten. Measured (720p,
    /// bench machine, against libyuv): frames that are not in cache 0.66–0.73× with
    /// non-temporal stores instead of 0.84–1.05×.
    static func writesAroundCache(_ destination: MutableVideoFrame, recentlyWritten: Bool) -> Bool {
        destination.plane0.bytes.count >= writeAroundCacheBytes && !recentlyWritten
    }

    /// I420 / NV12 → BGRA: the luma rows of chroma rows `chromaRows`; with `writeAroundCache`
    /// the destination's whole 64-byte lines get non-temporal stores (the same bytes).
    static func yuvToBGRA(_ source: VideoFrame, _ destination: MutableVideoFrame, _ k: CVFYUVToRGBCoefficients, chromaRows: Range<Int>,
                          writeAroundCache: Bool) {
        let first = 2 * chromaRows.lowerBound, end = min(2 * chromaRows.upperBound, source.height)
        guard first < end else { return }
        let (y, c1, d) = (source.plane0, source.plane1, destination.plane0)
        let yBase = y.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let c1Base = c1.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let dBase = d.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        withUnsafePointer(to: k) { k in
            if source.format == .nv12 {
                cvf_avx2_nv12_to_bgra(yBase, y.stride, c1Base, c1.stride, dBase, d.stride, source.width, first, end, writeAroundCache ? 1 : 0, k)
            } else {
                let c2 = source.plane2
                cvf_avx2_i420_to_bgra(yBase, y.stride, c1Base, c1.stride, c2.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), c2.stride,
                                      dBase, d.stride, source.width, first, end, writeAroundCache ? 1 : 0, k)
            }
        }
    }

    /// BGRA → I420: chroma rows `chromaRows` and the luma rows they cover; the last row of an
    /// odd height (a chroma row of one luma row) goes to the reference.
    static func bgraToI420(_ source: VideoFrame, _ destination: MutableVideoFrame, _ k: RGBToYUVCoefficients, _ ck: CVFRGBToYUVCoefficients, chromaRows: Range<Int>) {
        let pairs = chromaRows.lowerBound..<min(chromaRows.upperBound, source.height / 2)
        if !pairs.isEmpty {
            let (s, y, u, v) = (source.plane0, destination.plane0, destination.plane1, destination.plane2)
            func bytes(_ plane: MutableVideoPlane) -> UnsafeMutablePointer<UInt8> { plane.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) }
            withUnsafePointer(to: ck) { ck in
                cvf_avx2_bgra_to_i420(s.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), s.stride, bytes(y), y.stride, bytes(u), u.stride, bytes(v), v.stride,
                                      source.width, pairs.lowerBound, pairs.upperBound, ck)
            }
        }
        for chromaRow in max(pairs.upperBound, chromaRows.lowerBound)..<chromaRows.upperBound {
            ReferenceKernels.bgraToI420(source, destination, k, chromaRow: chromaRow, chromaColumns: 0..<PixelFormat.chromaSize(source.width))
        }
    }
}
#endif
