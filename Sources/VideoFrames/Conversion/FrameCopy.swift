/// Copies a frame's rows into another frame of the same format and size, plane by plane; the
/// strides may differ (a pixel buffer's rows are usually padded). Only the pixel rows are
/// written, never the padding.
enum FrameCopy {
    static func copy(_ source: VideoFrame, into destination: MutableVideoFrame) throws {
        guard source.format == destination.format else {
            throw VideoFrameError(.unsupportedConversion, "a copy needs one format: source \(source.format), destination \(destination.format)")
        }
        guard source.width == destination.width, source.height == destination.height else {
            throw VideoFrameError(.sizeMismatch, "source is \(source.width)x\(source.height), destination \(destination.width)x\(destination.height)")
        }
        for index in 0..<source.format.planeCount {
            let from = source.plane(index), to = destination.plane(index)
            let rowBytes = source.format.rowBytes(plane: index, width: source.width)
            // Both frames were validated: every row lies inside its plane, so the base
            // addresses exist and each row copy stays in bounds.
            guard let fromBase = from.bytes.baseAddress, let toBase = to.bytes.baseAddress else { continue }
            for row in 0..<source.format.rows(plane: index, height: source.height) {
                (toBase + row * to.stride).copyMemory(from: fromBase + row * from.stride, byteCount: rowBytes)
            }
        }
    }
}
