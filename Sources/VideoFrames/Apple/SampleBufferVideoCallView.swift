#if os(iOS) && canImport(AVKit)
import AVFoundation
import UIKit

/// A view drawing a call's video with an `AVSampleBufferDisplayLayer`, turned so each frame's
/// ``VideoRotation`` shows upright: inline in the app and, moved by
/// ``VideoCallPictureInPicture``, inside Picture in Picture.
///
/// The pixels are not rotated: the display layer is, as ``RotatedLayerLayout`` computes (tested
/// on Linux); the layer's `videoGravity` fits the picture. Not compiled on Linux.
@MainActor
public final class SampleBufferVideoCallView: UIView {
    /// The layer the sample buffers go to (a sublayer, so it can be turned).
    public let displayLayer = AVSampleBufferDisplayLayer()
    /// The rotation of the frames being shown.
    public private(set) var rotation: VideoRotation = .none

    /// A view with an aspect-fit display layer.
    override public init(frame: CGRect) {
        super.init(frame: frame)
        displayLayer.videoGravity = .resizeAspect
        layer.addSublayer(displayLayer)
    }

    /// Not supported (no storyboard use).
    public required init?(coder: NSCoder) { nil }

    /// Shows `sampleBuffer`, a frame needing `rotation`, first flushing a layer that failed
    /// (e.g. after the app was in the background) so the stream recovers.
    public func enqueue(_ sampleBuffer: CMSampleBuffer, rotation: VideoRotation) {
        if rotation != self.rotation {
            self.rotation = rotation
            setNeedsLayout()
        }
        if #available(iOS 17.0, *) {
            let renderer = displayLayer.sampleBufferRenderer
            if renderer.status == .failed { renderer.flush() }
            renderer.enqueue(sampleBuffer)
        } else {
            if displayLayer.status == .failed { displayLayer.flush() }
            displayLayer.enqueue(sampleBuffer)
        }
    }

    /// Places and turns the display layer for the current rotation.
    override public func layoutSubviews() {
        super.layoutSubviews()
        let layout = RotatedLayerLayout(rotation: rotation, containerWidth: Double(bounds.width), containerHeight: Double(bounds.height))
        CATransaction.begin()
        CATransaction.setDisableActions(true)   // no implicit animation on every rotation or resize
        displayLayer.setAffineTransform(.identity)
        displayLayer.bounds = CGRect(x: 0, y: 0, width: layout.boundsWidth, height: layout.boundsHeight)
        displayLayer.position = CGPoint(x: layout.centerX, y: layout.centerY)
        displayLayer.setAffineTransform(CGAffineTransform(a: CGFloat(layout.a), b: CGFloat(layout.b), c: CGFloat(layout.c), d: CGFloat(layout.d), tx: 0, ty: 0))
        CATransaction.commit()
    }
}
#endif
