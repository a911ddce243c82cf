/// The checks every frame passes before any pixel is touched: sizes, strides, plane lengths.
///
/// After a frame is validated, every row of every plane lies inside its buffer, which is what
/// lets the converters read and write through raw pointers without bounds checks.
enum FrameGeometry {
    /// Throws unless `width` x `height` is a frame size.
    static func validateSize(width: Int, height: Int) throws {
        guard width > 0, height > 0, width <= VideoFrame.maximumDimension, height <= VideoFrame.maximumDimension else {
            throw VideoFrameError(.invalidDimensions, "\(width)x\(height) is not a frame size: width and height must be 1...\(VideoFrame.maximumDimension)")
        }
    }

    /// Throws unless plane `index` of `count` bytes with rows `stride` apart holds its rows.
    static func validatePlane(_ index: Int, count: Int, stride: Int, format: PixelFormat, width: Int, height: Int) throws {
        let rowBytes = format.rowBytes(plane: index, width: width)
        let rows = format.rows(plane: index, height: height)
        guard stride >= rowBytes else {
            throw VideoFrameError(.strideTooSmall, "stride \(stride) is smaller than a row of \(rowBytes) bytes (\(format) \(width)x\(height)); negative (bottom-up) strides are not supported", plane: index)
        }
        let (padded, overflow) = stride.multipliedReportingOverflow(by: rows - 1)
        let needed = overflow ? Int.max : padded + rowBytes
        guard count >= needed else {
            let neededText = overflow ? "more than Int.max" : String(needed)
            throw VideoFrameError(.planeTooShort, "\(count) bytes cannot hold \(rows) rows of \(rowBytes) bytes \(stride) apart: \(neededText) needed (\(format) \(width)x\(height))", plane: index)
        }
    }

    /// A stride for rows of `rowBytes`, rounded up to a multiple of `alignment`.
    static func alignedStride(_ rowBytes: Int, alignment: Int) -> Int {
        let alignment = max(alignment, 1)
        return (rowBytes + alignment - 1) / alignment * alignment
    }
}
