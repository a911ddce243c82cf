/// A decoded picture in memory someone else owns: format, size, planes with strides, timestamp
/// and rotation. It does not copy: it is valid while the plane memory is.
///
/// Creating one validates it: a size out of range, a stride smaller than a row, a plane too
/// short for its rows or the wrong number of planes throw a ``VideoFrameError``, so a frame
/// that exists can be read without further checks. Odd widths and heights are legal; chroma
/// planes then have `ceil(width / 2)` x `ceil(height / 2)` samples.
///
/// ```swift
/// let frame = try VideoFrame.i420(y: yPlane, u: uPlane, v: vPlane, width: 1280, height: 720,
///                                 timestamp: rtpTimestamp)
/// ```
public struct VideoFrame {
    /// The largest accepted width or height.
    public static let maximumDimension = 16_384

    /// The memory layout.
    public let format: PixelFormat
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// RTP-style media timestamp, 90 kHz, wrapping at 2³²; see ``PresentationClock``.
    public var timestamp: UInt32
    /// How the frame must be rotated to be shown upright.
    public var rotation: VideoRotation

    let plane0: VideoPlane
    let plane1: VideoPlane
    let plane2: VideoPlane

    /// A frame of `format` over `planes` (as many as the format has), validated.
    public init(format: PixelFormat, width: Int, height: Int, planes: [VideoPlane], timestamp: UInt32 = 0, rotation: VideoRotation = .none) throws {
        guard planes.count == format.planeCount else {
            throw VideoFrameError(.wrongPlaneCount, "\(format) has \(format.planeCount) planes, got \(planes.count)")
        }
        try self.init(format: format, width: width, height: height,
                      plane0: planes[0], plane1: planes.count > 1 ? planes[1] : .empty, plane2: planes.count > 2 ? planes[2] : .empty,
                      timestamp: timestamp, rotation: rotation)
    }

    /// An I420 frame: Y, U and V planes.
    public static func i420(y: VideoPlane, u: VideoPlane, v: VideoPlane, width: Int, height: Int, timestamp: UInt32 = 0, rotation: VideoRotation = .none) throws -> VideoFrame {
        try VideoFrame(format: .i420, width: width, height: height, plane0: y, plane1: u, plane2: v, timestamp: timestamp, rotation: rotation)
    }

    /// An NV12 frame: a Y plane and an interleaved U,V plane.
    public static func nv12(y: VideoPlane, uv: VideoPlane, width: Int, height: Int, timestamp: UInt32 = 0, rotation: VideoRotation = .none) throws -> VideoFrame {
        try VideoFrame(format: .nv12, width: width, height: height, plane0: y, plane1: uv, plane2: .empty, timestamp: timestamp, rotation: rotation)
    }

    /// A BGRA frame: one plane of 4-byte pixels.
    public static func bgra(_ pixels: VideoPlane, width: Int, height: Int, timestamp: UInt32 = 0, rotation: VideoRotation = .none) throws -> VideoFrame {
        try VideoFrame(format: .bgra, width: width, height: height, plane0: pixels, plane1: .empty, plane2: .empty, timestamp: timestamp, rotation: rotation)
    }

    init(format: PixelFormat, width: Int, height: Int, plane0: VideoPlane, plane1: VideoPlane, plane2: VideoPlane, timestamp: UInt32, rotation: VideoRotation) throws {
        try FrameGeometry.validateSize(width: width, height: height)
        let planes = (plane0, plane1, plane2)
        for index in 0..<format.planeCount {
            let plane = index == 0 ? planes.0 : index == 1 ? planes.1 : planes.2
            try FrameGeometry.validatePlane(index, count: plane.bytes.count, stride: plane.stride, format: format, width: width, height: height)
        }
        self.init(unchecked: format, width: width, height: height, plane0: plane0, plane1: plane1, plane2: plane2, timestamp: timestamp, rotation: rotation)
    }

    /// A frame whose geometry the caller has already validated.
    init(unchecked format: PixelFormat, width: Int, height: Int, plane0: VideoPlane, plane1: VideoPlane, plane2: VideoPlane, timestamp: UInt32, rotation: VideoRotation) {
        self.format = format
        self.width = width
        self.height = height
        self.plane0 = plane0
        self.plane1 = plane1
        self.plane2 = plane2
        self.timestamp = timestamp
        self.rotation = rotation
    }

    /// Plane `index` (`0..<format.planeCount`): Y, then U and V (I420) or UV (NV12); or the
    /// BGRA pixels.
    public func plane(_ index: Int) -> VideoPlane {
        switch index {
        case 0: plane0
        case 1: plane1
        default: plane2
        }
    }

    /// The frame's pixel rows without stride padding, plane after plane: the layout of a raw
    /// `.yuv` / `.bgra` file and of a Y4M frame.
    public func packedBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.packedCount(format: format, width: width, height: height))
        for index in 0..<format.planeCount {
            let plane = plane(index)
            let rowBytes = format.rowBytes(plane: index, width: width)
            for row in 0..<format.rows(plane: index, height: height) {
                bytes.append(contentsOf: plane.bytes[(row * plane.stride)..<(row * plane.stride + rowBytes)])
            }
        }
        return bytes
    }

    /// The bytes of a frame of this format and size with no stride padding.
    public static func packedCount(format: PixelFormat, width: Int, height: Int) -> Int {
        (0..<format.planeCount).reduce(0) { $0 + format.rowBytes(plane: $1, width: width) * format.rows(plane: $1, height: height) }
    }
}
