/// Reads a YUV4MPEG2 (`.y4m`) stream frame by frame: a real frame source that works on any
/// machine (`ffmpeg -i clip.mp4 -pix_fmt yuv420p clip.y4m` makes one).
///
/// Frames are I420 with 90 kHz timestamps: a frame line's `XRTP=` parameter when it has one
/// (`FRAME XRTP=408500`, what `Rig/record.py --frames` writes: the RTP timestamp of the decoded
/// frame), otherwise derived from the header's frame rate. A stream that
/// ends inside a frame throws ``VideoFrameError/Code/truncated`` from the read of that frame;
/// every frame before it was returned normally.
///
/// ```swift
/// var reader = try Y4MReader(path: "clip.y4m")
/// while let frame = try reader.nextFrame() { ... }
/// ```
public struct Y4MReader<Source: ByteSource> {
    /// The stream header.
    public let header: Y4MHeader
    /// How many frames have been read.
    public private(set) var framesRead = 0
    private var input: BufferedInput<Source>

    /// Reads the stream header from `source`.
    public init(source: Source) throws {
        input = BufferedInput(source)
        guard let line = try input.readLine(maximumLength: 4096) else {
            throw VideoFrameError(.invalidHeader, "the stream is empty or its header line is longer than 4096 bytes")
        }
        header = try Y4MHeader.parse(line)
    }

    /// The next frame, or `nil` at the end of the stream.
    public mutating func nextFrame() throws -> VideoFrameBuffer? {
        var buffer = try VideoFrameBuffer(format: .i420, width: header.width, height: header.height)
        return try readFrame(into: &buffer) ? buffer : nil
    }

    /// Reads the next frame into `buffer` (reusing its memory when it is a packed I420 frame
    /// of the stream's size), returning `false` at the end of the stream.
    public mutating func readFrame(into buffer: inout VideoFrameBuffer) throws -> Bool {
        let index = framesRead
        guard let line = try input.readLine(maximumLength: 4096) else {
            if input.pendingBytes > 0 {
                throw VideoFrameError(.truncated, "the stream ends inside the FRAME line after \(index) complete frames", frameIndex: index)
            }
            return false
        }
        guard line.starts(with: Array("FRAME".utf8)) else {
            throw VideoFrameError(.invalidHeader, "expected a FRAME line, found '\(String(decoding: line.prefix(16), as: UTF8.self))'", frameIndex: index)
        }
        let timestamp = try Self.rtpTimestamp(inFrameLine: line, index: index) ?? header.timestamp(ofFrame: index)
        let needed = header.frameByteCount
        if buffer.format != .i420 || buffer.width != header.width || buffer.height != header.height || buffer.storage.count != needed {
            buffer = try VideoFrameBuffer(format: .i420, width: header.width, height: header.height)
        }
        let got = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
        guard got == needed else {
            throw VideoFrameError(.truncated, "the stream ends inside the frame: \(got) of its \(needed) bytes are present; the \(index) frames before it are complete", frameIndex: index)
        }
        buffer.timestamp = timestamp
        framesRead += 1
        return true
    }

    /// The `XRTP=` parameter of a frame line, `nil` when it has none.
    static func rtpTimestamp(inFrameLine line: some Collection<UInt8>, index: Int) throws -> UInt32? {
        for parameter in line.split(separator: UInt8(ascii: " ")).dropFirst() where parameter.starts(with: Array("XRTP=".utf8)) {
            let text = String(decoding: parameter.dropFirst(5), as: UTF8.self)
            guard let value = UInt32(text) else {
                throw VideoFrameError(.invalidHeader, "frame \(index): XRTP='\(text.prefix(16))' is not a 32-bit RTP timestamp", frameIndex: index)
            }
            return value
        }
        return nil
    }
}

extension Y4MReader where Source == ByteArraySource {
    /// A reader over a whole stream in memory.
    public init(bytes: [UInt8]) throws { try self.init(source: ByteArraySource(bytes)) }
}

extension Y4MReader where Source == FileByteSource {
    /// A reader over the file at `path`.
    public init(path: String) throws { try self.init(source: FileByteSource(path: path)) }
}

/// A read-ahead buffer over a ``ByteSource`` for line-oriented headers and bulk payloads.
struct BufferedInput<Source: ByteSource> {
    private var source: Source
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    private var exhausted = false

    init(_ source: Source) { self.source = source }

    /// Bytes read ahead but not yet consumed.
    var pendingBytes: Int { end - start }

    /// The next line without its `\n`; `nil` at the end of the stream, or when no newline comes
    /// within `maximumLength` bytes (the bytes stay pending).
    mutating func readLine(maximumLength: Int) throws -> [UInt8]? {
        while true {
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            if exhausted || end - start >= maximumLength { return nil }
            try fill()
        }
    }

    /// Copies up to `destination.count` bytes into it; fewer only at the end of the stream.
    mutating func read(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        var copied = min(end - start, destination.count)
        buffer.withUnsafeBytes { destination.baseAddress?.copyMemory(from: $0.baseAddress! + start, byteCount: copied) }
        start += copied
        while copied < destination.count {
            let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: destination[copied...]))
            if count == 0 { break }
            copied += count
        }
        return copied
    }

    private mutating func fill() throws {
        if start > 0 {
            buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
            (start, end) = (0, end - start)
        }
        if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let count = try buffer.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[end...])) }
        if count == 0 { exhausted = true }
        end += count
    }
}
