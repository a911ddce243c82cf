/// A frame that owns its memory: one byte array holding every plane.
///
/// A value: copies share storage until one is written (copy on write), so it is `Sendable`
/// and can be handed between threads. Reach the pixels with ``withFrame(_:)`` and
/// ``withMutableFrame(_:)``.
public struct VideoFrameBuffer: Sendable, Hashable {
    /// The memory layout.
    public let format: PixelFormat
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// RTP-style media timestamp, 90 kHz.
    public var timestamp: UInt32
    /// How the frame must be rotated to be shown upright.
    public var rotation: VideoRotation
    /// All planes, each starting at its ``planeOffset(_:)``, rows ``stride(_:)`` apart.
    public private(set) var storage: [UInt8]

    private let strides: SIMD4<Int>
    private let offsets: SIMD4<Int>

    /// A zero-filled frame whose rows start on multiples of `rowAlignment` bytes (64 suits
    /// vector code and matches what CoreVideo does).
    public init(format: PixelFormat, width: Int, height: Int, rowAlignment: Int = 1, timestamp: UInt32 = 0, rotation: VideoRotation = .none) throws {
        try FrameGeometry.validateSize(width: width, height: height)
        var strides = SIMD4<Int>(repeating: 0), offsets = SIMD4<Int>(repeating: 0)
        var total = 0
        for index in 0..<format.planeCount {
            strides[index] = FrameGeometry.alignedStride(format.rowBytes(plane: index, width: width), alignment: rowAlignment)
            offsets[index] = total
            total += strides[index] * format.rows(plane: index, height: height)
        }
        self.format = format
        self.width = width
        self.height = height
        self.timestamp = timestamp
        self.rotation = rotation
        self.strides = strides
        self.offsets = offsets
        self.storage = [UInt8](repeating: 0, count: total)
    }

    /// A frame over `packed`: its planes back to back with no stride padding (a raw `.yuv`
    /// file's frame, a Y4M frame). Throws unless `packed` has exactly the bytes needed.
    public init(format: PixelFormat, width: Int, height: Int, packed: [UInt8], timestamp: UInt32 = 0, rotation: VideoRotation = .none) throws {
        try FrameGeometry.validateSize(width: width, height: height)
        let needed = VideoFrame.packedCount(format: format, width: width, height: height)
        guard packed.count == needed else {
            throw VideoFrameError(.planeTooShort, "\(format) \(width)x\(height) needs \(needed) bytes, got \(packed.count)")
        }
        try self.init(format: format, width: width, height: height, timestamp: timestamp, rotation: rotation)
        storage = packed
    }

    /// Bytes from one row of plane `index` to the next.
    public func stride(_ index: Int) -> Int { strides[index] }

    /// Where plane `index` starts in ``storage``.
    public func planeOffset(_ index: Int) -> Int { offsets[index] }

    /// Calls `body` with the raw bytes of all planes (see ``planeOffset(_:)`` and
    /// ``stride(_:)``), e.g. to read a decoder's output straight into them.
    public mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutableBytes(body)
    }

    /// Calls `body` with a read-only view of the frame.
    public func withFrame<Result>(_ body: (VideoFrame) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { raw in
            func plane(_ index: Int) -> VideoPlane {
                guard index < format.planeCount else { return .empty }
                let count = strides[index] * format.rows(plane: index, height: height)
                return VideoPlane(bytes: UnsafeRawBufferPointer(rebasing: raw[offsets[index]..<(offsets[index] + count)]), stride: strides[index])
            }
            let frame = VideoFrame(unchecked: format, width: width, height: height, plane0: plane(0), plane1: plane(1), plane2: plane(2), timestamp: timestamp, rotation: rotation)
            return try body(frame)
        }
    }

    /// Calls `body` with a writable view of the frame.
    public mutating func withMutableFrame<Result>(_ body: (MutableVideoFrame) throws -> Result) rethrows -> Result {
        let (format, width, height, strides, offsets) = (self.format, self.width, self.height, self.strides, self.offsets)
        let (timestamp, rotation) = (self.timestamp, self.rotation)
        return try storage.withUnsafeMutableBytes { raw in
            func plane(_ index: Int) -> MutableVideoPlane {
                guard index < format.planeCount else { return .empty }
                let count = strides[index] * format.rows(plane: index, height: height)
                return MutableVideoPlane(bytes: UnsafeMutableRawBufferPointer(rebasing: raw[offsets[index]..<(offsets[index] + count)]), stride: strides[index])
            }
            // The geometry was validated when the buffer was made; this cannot throw.
            var frame = MutableVideoFrame(unchecked: format, width: width, height: height, plane0: plane(0), plane1: plane(1), plane2: plane(2))
            frame.timestamp = timestamp
            frame.rotation = rotation
            return try body(frame)
        }
    }
}
