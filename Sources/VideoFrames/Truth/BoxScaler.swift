/// Scales I420 frames down by averaging boxes of source pixels: the reference a received frame
/// is compared with when it arrives smaller than the source (a simulcast layer).
///
/// libwebrtc makes its simulcast layers with libyuv's `I420Scale(..., kFilterBox)`; this is the
/// same arithmetic, written here: at exactly half or a quarter of the size each way, each
/// destination sample is the average of its 2x2 or 4x4 block rounded to nearest; at other
/// ratios, libyuv's box in 16.16 fixed point — boxes from `floor(i · step)` with
/// `step = floor(source · 65536 / destination)`, the sum times `65536 / (box width · box
/// height)` (integer division), shifted right by 16. `BoxScalerLibYUVTests` checks it against
/// libyuv bit for bit at the layers' sizes. (Above half size libyuv switches to bilinear; this
/// stays a box there.)
public enum BoxScaler {
    /// `frame` (I420 or NV12, read as Y, U, V) scaled to `width` x `height` as an I420 buffer.
    /// - Throws: ``VideoFrameError`` with ``VideoFrameError/Code/unsupportedConversion`` for
    ///   BGRA or a destination larger than the source,
    ///   ``VideoFrameError/Code/invalidDimensions`` for an invalid destination size.
    public static func scaled(_ frame: VideoFrame, width: Int, height: Int) throws -> VideoFrameBuffer {
        guard frame.format.isYUV else {
            throw VideoFrameError(.unsupportedConversion, "the box scaler reads I420 or NV12, not \(frame.format)")
        }
        guard width <= frame.width, height <= frame.height else {
            throw VideoFrameError(.unsupportedConversion, "the box scaler only scales down: \(frame.width)x\(frame.height) to \(width)x\(height)")
        }
        var output = try VideoFrameBuffer(format: .i420, width: width, height: height, timestamp: frame.timestamp, rotation: frame.rotation)
        output.withMutableFrame { destination in
            scalePlane(frame.plane(0), step: 1, offset: 0, width: frame.width, height: frame.height, into: destination.plane(0), width: width, height: height)
            let (sourceWidth, sourceHeight) = (PixelFormat.chromaSize(frame.width), PixelFormat.chromaSize(frame.height))
            let (chromaWidth, chromaHeight) = (PixelFormat.chromaSize(width), PixelFormat.chromaSize(height))
            for index in 1...2 {
                let source = frame.format == .nv12 ? frame.plane(1) : frame.plane(index)
                let (step, offset) = frame.format == .nv12 ? (2, index - 1) : (1, 0)
                scalePlane(source, step: step, offset: offset, width: sourceWidth, height: sourceHeight,
                           into: destination.plane(index), width: chromaWidth, height: chromaHeight)
            }
        }
        return output
    }

    /// One plane: samples `step` bytes apart from `offset` (2 and 0 or 1 for NV12's pairs).
    private static func scalePlane(_ source: VideoPlane, step: Int, offset: Int, width: Int, height: Int,
                                   into destination: MutableVideoPlane, width outWidth: Int, height outHeight: Int) {
        let factor = width / outWidth
        let whole = (factor == 2 || factor == 4) && width == factor * outWidth && height == factor * outHeight
        let columns = (0..<outWidth).map { whole ? ($0 * factor)..<($0 * factor + factor) : boxRange($0, source: width, destination: outWidth) }
        for y in 0..<outHeight {
            let rows = whole ? (y * factor)..<(y * factor + factor) : boxRange(y, source: height, destination: outHeight)
            for x in 0..<outWidth {
                let range = columns[x]
                var sum = 0
                for row in rows {
                    let start = row * source.stride + offset
                    for column in range { sum += Int(source.bytes[start + column * step]) }
                }
                let count = range.count * rows.count
                let value = whole ? (sum + count / 2) / count : (sum * (65_536 / count)) >> 16
                destination.bytes[y * destination.stride + x] = UInt8(value)
            }
        }
    }

    /// The source samples destination sample `index` averages (libyuv's 16.16 steps, the
    /// last box ending at the source's end).
    static func boxRange(_ index: Int, source: Int, destination: Int) -> Range<Int> {
        let step = (source << 16) / destination
        let lower = (index * step) >> 16
        let upper = min((index + 1) * step, source << 16) >> 16
        return lower..<max(upper, lower + 1)
    }
}
