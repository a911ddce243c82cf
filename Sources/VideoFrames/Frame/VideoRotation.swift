/// How a frame must be rotated clockwise to be shown upright.
///
/// Frames carry it as metadata (cameras deliver sensor-oriented frames); the converters do not
/// rotate pixels, the display applies it (a layer transform on Apple platforms).
public enum VideoRotation: Int, Sendable, Hashable, CaseIterable {
    /// Upright already.
    case none = 0
    /// Rotate 90° clockwise.
    case clockwise90 = 90
    /// Rotate 180°.
    case clockwise180 = 180
    /// Rotate 270° clockwise (90° counter-clockwise).
    case clockwise270 = 270

    /// The rotation for a number of degrees (any multiple of 90, negative allowed), or `nil`.
    public init?(degrees: Int) {
        guard degrees % 90 == 0 else { return nil }
        self.init(rawValue: ((degrees % 360) + 360) % 360)
    }

    /// Whether the displayed width and height are swapped.
    public var swapsDimensions: Bool { self == .clockwise90 || self == .clockwise270 }
}
