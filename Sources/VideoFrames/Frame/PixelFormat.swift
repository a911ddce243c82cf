/// The memory layouts a ``VideoFrame`` can have.
///
/// All YUV layouts are 8-bit 4:2:0: the chroma planes are `ceil(width / 2)` by
/// `ceil(height / 2)` samples, so odd sizes are legal.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Planar Y, then U (Cb), then V (Cr), each plane with its own stride.
    case i420
    /// Planar Y, then one plane of interleaved U,V pairs.
    case nv12
    /// One plane of 4-byte pixels in memory order B, G, R, A (`kCVPixelFormatType_32BGRA`,
    /// which libyuv calls "ARGB").
    case bgra

    /// How many planes the format has.
    public var planeCount: Int {
        switch self {
        case .i420: 3
        case .nv12: 2
        case .bgra: 1
        }
    }

    /// Whether the format carries Y, U and V rather than RGB.
    public var isYUV: Bool { self != .bgra }

    /// The bytes of one row of `plane` for a frame `width` pixels wide (without padding).
    ///
    /// - Precondition: `plane < planeCount`.
    public func rowBytes(plane: Int, width: Int) -> Int {
        switch (self, plane) {
        case (.bgra, _): width * 4
        case (_, 0): width
        case (.nv12, _): Self.chromaSize(width) * 2
        default: Self.chromaSize(width)
        }
    }

    /// The rows of `plane` for a frame `height` pixels high.
    ///
    /// - Precondition: `plane < planeCount`.
    public func rows(plane: Int, height: Int) -> Int {
        plane == 0 ? height : Self.chromaSize(height)
    }

    /// A chroma dimension for a luma dimension: `ceil(size / 2)`.
    public static func chromaSize(_ size: Int) -> Int { (size + 1) / 2 }

    /// `I420`, `NV12`, `BGRA`.
    public var description: String { rawValue.uppercased() }
}
