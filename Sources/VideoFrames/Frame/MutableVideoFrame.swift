/// A frame to write into, in memory someone else owns: the destination of a conversion.
///
/// Validated like ``VideoFrame``. The converters write every pixel of it and nothing outside
/// its rows (stride padding is left as it was).
public struct MutableVideoFrame {
    /// The memory layout.
    public let format: PixelFormat
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// RTP-style media timestamp, 90 kHz; conversions copy the source's.
    public var timestamp: UInt32
    /// How the frame must be rotated to be shown upright; conversions copy the source's.
    public var rotation: VideoRotation

    let plane0: MutableVideoPlane
    let plane1: MutableVideoPlane
    let plane2: MutableVideoPlane

    /// A writable frame of `format` over `planes` (as many as the format has), validated.
    public init(format: PixelFormat, width: Int, height: Int, planes: [MutableVideoPlane], timestamp: UInt32 = 0, rotation: VideoRotation = .none) throws {
        guard planes.count == format.planeCount else {
            throw VideoFrameError(.wrongPlaneCount, "\(format) has \(format.planeCount) planes, got \(planes.count)")
        }
        try self.init(format: format, width: width, height: height,
                      plane0: planes[0], plane1: planes.count > 1 ? planes[1] : .empty, plane2: planes.count > 2 ? planes[2] : .empty)
        self.timestamp = timestamp
        self.rotation = rotation
    }

    /// A writable I420 frame.
    public static func i420(y: MutableVideoPlane, u: MutableVideoPlane, v: MutableVideoPlane, width: Int, height: Int) throws -> MutableVideoFrame {
        try MutableVideoFrame(format: .i420, width: width, height: height, plane0: y, plane1: u, plane2: v)
    }

    /// A writable NV12 frame.
    public static func nv12(y: MutableVideoPlane, uv: MutableVideoPlane, width: Int, height: Int) throws -> MutableVideoFrame {
        try MutableVideoFrame(format: .nv12, width: width, height: height, plane0: y, plane1: uv, plane2: .empty)
    }

    /// A writable BGRA frame, e.g. a locked `CVPixelBuffer`'s base address and bytes per row.
    public static func bgra(_ pixels: MutableVideoPlane, width: Int, height: Int) throws -> MutableVideoFrame {
        try MutableVideoFrame(format: .bgra, width: width, height: height, plane0: pixels, plane1: .empty, plane2: .empty)
    }

    init(format: PixelFormat, width: Int, height: Int, plane0: MutableVideoPlane, plane1: MutableVideoPlane, plane2: MutableVideoPlane) throws {
        try FrameGeometry.validateSize(width: width, height: height)
        let planes = (plane0, plane1, plane2)
        for index in 0..<format.planeCount {
            let plane = index == 0 ? planes.0 : index == 1 ? planes.1 : planes.2
            try FrameGeometry.validatePlane(index, count: plane.bytes.count, stride: plane.stride, format: format, width: width, height: height)
        }
        self.init(unchecked: format, width: width, height: height, plane0: plane0, plane1: plane1, plane2: plane2)
    }

    /// A frame whose geometry the caller has already validated.
    init(unchecked format: PixelFormat, width: Int, height: Int, plane0: MutableVideoPlane, plane1: MutableVideoPlane, plane2: MutableVideoPlane) {
        self.format = format
        self.width = width
        self.height = height
        self.plane0 = plane0
        self.plane1 = plane1
        self.plane2 = plane2
        self.timestamp = 0
        self.rotation = .none
    }

    /// Plane `index` (`0..<format.planeCount`).
    public func plane(_ index: Int) -> MutableVideoPlane {
        switch index {
        case 0: plane0
        case 1: plane1
        default: plane2
        }
    }

    /// The same frame, read-only.
    public var readOnly: VideoFrame {
        VideoFrame(unchecked: format, width: width, height: height, plane0: plane0.readOnly, plane1: plane1.readOnly, plane2: plane2.readOnly, timestamp: timestamp, rotation: rotation)
    }
}
