/// Reuses BGRA frame buffers of one size, so a steady stream of conversions allocates nothing
/// after the first few frames: the portable counterpart of `CVPixelBufferPool`.
///
/// A value type: keep it where the frames are produced (one renderer, one serial queue). Take a
/// buffer with ``makeBuffer(width:height:)``, convert into it, and give it back with
/// ``recycle(_:)`` when its consumer is done. At most ``maximumIdleBuffers`` wait for reuse;
/// a change of size drops the old ones. Buffers are values: recycling one that is still in use
/// elsewhere is safe (the next write into it copies it first) but saves nothing.
///
/// ```swift
/// var buffer = try pool.makeBuffer(width: frame.width, height: frame.height)
/// try buffer.withMutableFrame { try converter.convert(frame, into: $0) }
/// display(buffer)
/// pool.recycle(buffer)
/// ```
public struct PixelBufferPool: Sendable {
    /// What the pool has done so far.
    public struct Statistics: Sendable, Hashable {
        /// Buffers allocated.
        public var allocated = 0
        /// Buffers handed out again instead of allocated.
        public var reused = 0
        /// Buffers given back but released: wrong size or format, or pool full; and idle buffers
    /// dropped by a change of size or ``PixelBufferPool/drain()``.
        public var discarded = 0
    }

    /// The most buffers kept for reuse.
    public let maximumIdleBuffers: Int
    /// Row alignment of the buffers, in bytes.
    public let rowAlignment: Int
    /// A buffer size, in pixels.
    public struct Size: Sendable, Hashable {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
    }

    /// The size of the buffers kept, once one has been made.
    public private(set) var size: Size?
    /// What the pool has done so far.
    public private(set) var statistics = Statistics()
    private var idle: [VideoFrameBuffer] = []

    /// A pool keeping up to `maximumIdleBuffers` (at least 1) buffers whose rows are aligned to
    /// `rowAlignment` bytes.
    public init(maximumIdleBuffers: Int = 3, rowAlignment: Int = 64) {
        self.maximumIdleBuffers = max(maximumIdleBuffers, 1)
        self.rowAlignment = max(rowAlignment, 1)
    }

    /// Buffers waiting for reuse.
    public var idleCount: Int { idle.count }

    /// A BGRA buffer of this size: an idle one when there is one, a new one otherwise. Its
    /// timestamp and rotation are reset; its pixels are whatever was last written.
    public mutating func makeBuffer(width: Int, height: Int) throws -> VideoFrameBuffer {
        if size != Size(width: width, height: height) {
            statistics.discarded += idle.count
            idle.removeAll()
            size = Size(width: width, height: height)
        }
        if var buffer = idle.popLast() {
            statistics.reused += 1
            buffer.timestamp = 0
            buffer.rotation = .none
            return buffer
        }
        let buffer = try VideoFrameBuffer(format: .bgra, width: width, height: height, rowAlignment: rowAlignment)
        statistics.allocated += 1
        return buffer
    }

    /// Gives `buffer` back for reuse; pass the last copy (`pool.recycle(buffer)` after its last
    /// use). A buffer of another size or format, or one more than the pool keeps, is released.
    public mutating func recycle(_ buffer: consuming VideoFrameBuffer) {
        guard buffer.format == .bgra, let size, buffer.width == size.width, buffer.height == size.height,
              idle.count < maximumIdleBuffers else {
            statistics.discarded += 1
            return
        }
        idle.append(buffer)
    }

    /// Releases every idle buffer (e.g. when the app goes to the background).
    public mutating func drain() {
        statistics.discarded += idle.count
        idle.removeAll()
    }
}
