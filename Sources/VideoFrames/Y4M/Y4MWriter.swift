/// Writes YUV4MPEG2 (`.y4m`) streams: for tests, and for clips made by the pipeline.
public struct Y4MWriter: Sendable {
    /// The stream header.
    public let header: Y4MHeader

    /// A writer of `header`'s 4:2:0 frames.
    public init(header: Y4MHeader) { self.header = header }

    /// The header line.
    public func headerBytes() -> [UInt8] { header.encoded() }

    /// Appends a `FRAME` line and `frame`'s pixels (stride padding removed) to `output`.
    /// Throws unless `frame` is I420 of the header's size.
    public func append(_ frame: VideoFrame, to output: inout [UInt8]) throws {
        guard frame.format == .i420, frame.width == header.width, frame.height == header.height else {
            throw VideoFrameError(.sizeMismatch, "a Y4M stream of \(header.width)x\(header.height) takes I420 frames of that size, got \(frame.format) \(frame.width)x\(frame.height)")
        }
        output += Array("FRAME\n".utf8)
        output += frame.packedBytes()
    }

    /// A whole stream: the header and `frames`.
    public func encode(_ frames: [VideoFrameBuffer]) throws -> [UInt8] {
        var output = headerBytes()
        for frame in frames { try frame.withFrame { try append($0, to: &output) } }
        return output
    }
}
