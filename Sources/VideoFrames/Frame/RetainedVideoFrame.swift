/// A ``VideoFrame`` together with whatever keeps its plane memory alive, so it can be queued
/// and handed between threads.
///
/// Either it owns its bytes (a ``VideoFrameBuffer``), or it borrows them without a copy from an
/// `owner` object that keeps the planes alive (an engine's buffer, e.g. WebRTC's
/// `RTCI420Buffer`); the owner is released when the last copy of the frame is.
///
/// The planes must stay unchanged while any copy of the frame lives: an engine must not reuse
/// a borrowed buffer's memory for another picture until it is released.
///
/// ```swift
/// let retained = RetainedVideoFrame(frame: view, owner: engineBuffer)   // no copy
/// let bytes = retained.withFrame { $0.packedBytes() }
/// ```
public struct RetainedVideoFrame: @unchecked Sendable {
    // `@unchecked`: the view's pointers are read-only and, by the contract above, point into
    // memory nobody writes while a copy lives (the buffer's copy-on-write array, or the owner's
    // planes); nothing here is ever mutated after init.
    private let storage: Storage

    private enum Storage {
        case owned(VideoFrameBuffer)
        case borrowed(VideoFrame, owner: AnyObject)
    }

    /// A frame over bytes it owns.
    public init(_ buffer: VideoFrameBuffer) {
        storage = .owned(buffer)
    }

    /// A frame over `frame`'s planes, kept alive by `owner` (no copy).
    public init(frame: VideoFrame, owner: AnyObject) {
        storage = .borrowed(frame, owner: owner)
    }

    /// The memory layout.
    public var format: PixelFormat {
        switch storage {
        case .owned(let buffer): buffer.format
        case .borrowed(let frame, _): frame.format
        }
    }

    /// Width in pixels.
    public var width: Int {
        switch storage {
        case .owned(let buffer): buffer.width
        case .borrowed(let frame, _): frame.width
        }
    }

    /// Height in pixels.
    public var height: Int {
        switch storage {
        case .owned(let buffer): buffer.height
        case .borrowed(let frame, _): frame.height
        }
    }

    /// RTP-style media timestamp, 90 kHz.
    public var timestamp: UInt32 {
        switch storage {
        case .owned(let buffer): buffer.timestamp
        case .borrowed(let frame, _): frame.timestamp
        }
    }

    /// How the frame must be rotated to be shown upright.
    public var rotation: VideoRotation {
        switch storage {
        case .owned(let buffer): buffer.rotation
        case .borrowed(let frame, _): frame.rotation
        }
    }

    /// Calls `body` with a view of the frame, valid only inside `body`.
    public func withFrame<R>(_ body: (VideoFrame) throws -> R) rethrows -> R {
        switch storage {
        case .owned(let buffer):
            return try buffer.withFrame(body)
        case .borrowed(let frame, let owner):
            return try withExtendedLifetime(owner) { try body(frame) }
        }
    }
}
