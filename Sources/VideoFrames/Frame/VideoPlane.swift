/// One plane of a frame in memory someone else owns: its bytes and the distance between rows.
///
/// The memory must stay valid and unchanged for as long as the plane (or a frame made of it)
/// is used; a plane does not copy.
public struct VideoPlane {
    /// The plane's bytes, from the first byte of the first row.
    public let bytes: UnsafeRawBufferPointer
    /// Bytes from the start of one row to the start of the next.
    public let stride: Int

    /// A plane over `bytes` whose rows start `stride` bytes apart.
    public init(bytes: UnsafeRawBufferPointer, stride: Int) {
        self.bytes = bytes
        self.stride = stride
    }

    /// A plane of `count` bytes at `base` whose rows start `stride` bytes apart.
    public init(base: UnsafeRawPointer, stride: Int, count: Int) {
        self.init(bytes: UnsafeRawBufferPointer(start: base, count: max(count, 0)), stride: stride)
    }

    /// An empty plane, the filler of the unused plane slots of a format.
    static var empty: VideoPlane { VideoPlane(bytes: UnsafeRawBufferPointer(start: nil, count: 0), stride: 0) }
}

/// One writable plane of a frame in memory someone else owns.
public struct MutableVideoPlane {
    /// The plane's bytes, from the first byte of the first row.
    public let bytes: UnsafeMutableRawBufferPointer
    /// Bytes from the start of one row to the start of the next.
    public let stride: Int

    /// A writable plane over `bytes` whose rows start `stride` bytes apart.
    public init(bytes: UnsafeMutableRawBufferPointer, stride: Int) {
        self.bytes = bytes
        self.stride = stride
    }

    /// A writable plane of `count` bytes at `base` whose rows start `stride` bytes apart.
    public init(base: UnsafeMutableRawPointer, stride: Int, count: Int) {
        self.init(bytes: UnsafeMutableRawBufferPointer(start: base, count: max(count, 0)), stride: stride)
    }

    /// The same plane, read-only.
    public var readOnly: VideoPlane { VideoPlane(bytes: UnsafeRawBufferPointer(bytes), stride: stride) }

    /// An empty plane, the filler of the unused plane slots of a format.
    static var empty: MutableVideoPlane { MutableVideoPlane(bytes: UnsafeMutableRawBufferPointer(start: nil, count: 0), stride: 0) }
}
