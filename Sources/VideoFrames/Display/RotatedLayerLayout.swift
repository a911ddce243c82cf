/// Where a layer showing frames of one ``VideoRotation`` goes inside its container so that the
/// picture appears upright and fills the container: its bounds before the transform, its
/// centre, and the rotation as the matrix of an affine transform.
///
/// The frame's pixels are never rotated (``VideoRotation``): the layer is. A layer turned by 90°
/// or 270° must be as wide as the container is high, so that once turned it covers the
/// container exactly; its own `videoGravity` then fits the picture inside.
///
/// The coordinate system is the one of UIKit and Core Animation on iOS: x to the right, y down,
/// so a positive rotation turns clockwise on screen. The matrix is that of
/// `CGAffineTransform(a:b:c:d:tx:ty:)`, which maps `(x, y)` to `(a·x + c·y, b·x + d·y)`.
///
/// ```swift
/// let layout = RotatedLayerLayout(rotation: frame.rotation, containerWidth: bounds.width, containerHeight: bounds.height)
/// layer.bounds = CGRect(x: 0, y: 0, width: layout.boundsWidth, height: layout.boundsHeight)
/// layer.position = CGPoint(x: layout.centerX, y: layout.centerY)
/// layer.setAffineTransform(CGAffineTransform(a: CGFloat(layout.a), b: CGFloat(layout.b), c: CGFloat(layout.c), d: CGFloat(layout.d), tx: 0, ty: 0))
/// ```
public struct RotatedLayerLayout: Sendable, Hashable {
    /// The layer's width before its transform.
    public var boundsWidth: Double
    /// The layer's height before its transform.
    public var boundsHeight: Double
    /// The layer's position (its centre) in the container.
    public var centerX: Double
    /// The layer's position (its centre) in the container.
    public var centerY: Double
    /// The transform's `a` (cos θ): exact, one of -1, 0, 1.
    public var a: Int
    /// The transform's `b` (sin θ).
    public var b: Int
    /// The transform's `c` (-sin θ).
    public var c: Int
    /// The transform's `d` (cos θ).
    public var d: Int

    /// The layout for frames needing `rotation` in a container of this size.
    public init(rotation: VideoRotation, containerWidth: Double, containerHeight: Double) {
        (boundsWidth, boundsHeight) = rotation.swapsDimensions ? (containerHeight, containerWidth) : (containerWidth, containerHeight)
        centerX = containerWidth / 2
        centerY = containerHeight / 2
        switch rotation {
        case .none: (a, b, c, d) = (1, 0, 0, 1)
        case .clockwise90: (a, b, c, d) = (0, 1, -1, 0)
        case .clockwise180: (a, b, c, d) = (-1, 0, 0, -1)
        case .clockwise270: (a, b, c, d) = (0, -1, 1, 0)
        }
    }
}

extension VideoRotation {
    /// The size of a `width` x `height` frame once shown upright (swapped for 90° and 270°):
    /// the aspect ratio a Picture-in-Picture window should take.
    public func displayedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }
}
