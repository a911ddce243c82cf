#if canImport(AVKit) && canImport(UIKit)
import AVFoundation
import AVKit
import UIKit

/// A view whose layer is an `AVSampleBufferDisplayLayer`: where the call's video is drawn,
/// inline and inside Picture in Picture.
@MainActor
public final class SampleBufferVideoCallView: UIView {
    /// `AVSampleBufferDisplayLayer`, so the view draws sample buffers.
    override public class var layerClass: AnyClass { AVSampleBufferDisplayLayer.self }

    /// The view's layer.
    public var sampleBufferDisplayLayer: AVSampleBufferDisplayLayer {
        // `layerClass` makes the layer this class; the cast cannot fail.
        unsafeDowncast(layer, to: AVSampleBufferDisplayLayer.self)
    }

    /// Shows `sampleBuffer`, first flushing a layer that failed (e.g. after the app was in the
    /// background) so the stream recovers.
    public func enqueue(_ sampleBuffer: CMSampleBuffer) {
        let layer = sampleBufferDisplayLayer
        if #available(iOS 17.0, tvOS 17.0, visionOS 1.0, *) {
            if layer.sampleBufferRenderer.status == .failed { layer.sampleBufferRenderer.flush() }
            layer.sampleBufferRenderer.enqueue(sampleBuffer)
        } else {
            if layer.status == .failed { layer.flush() }
            layer.enqueue(sampleBuffer)
        }
    }
}

/// Picture in Picture for a live call drawn by a ``SampleBufferVideoCallView``: the
/// `AVPictureInPictureController.ContentSource(sampleBufferDisplayLayer:playbackDelegate:)`
/// wiring, with the playback delegate a live stream needs (no seeking, never paused).
///
/// ```swift
/// let callView = SampleBufferVideoCallView()
/// let pip = VideoCallPictureInPicture(view: callView)      // keep a strong reference
/// // enable the "Audio, AirPlay, and Picture in Picture" background mode and an active
/// // .playAndRecord audio session; PiP then starts when the app goes to the background.
/// ```
@MainActor
public final class VideoCallPictureInPicture: NSObject, AVPictureInPictureSampleBufferPlaybackDelegate {
    /// The view shown inline and in Picture in Picture.
    public let view: SampleBufferVideoCallView
    /// The system controller; `nil` where Picture in Picture is unsupported.
    public private(set) var controller: AVPictureInPictureController?

    /// Wires Picture in Picture to `view`'s layer; it starts automatically when the app goes to
    /// the background while the view is on screen.
    public init(view: SampleBufferVideoCallView) {
        self.view = view
        super.init()
        guard AVPictureInPictureController.isPictureInPictureSupported() else { return }
        let source = AVPictureInPictureController.ContentSource(sampleBufferDisplayLayer: view.sampleBufferDisplayLayer, playbackDelegate: self)
        let controller = AVPictureInPictureController(contentSource: source)
        controller.canStartPictureInPictureAutomaticallyFromInline = true
        controller.requiresLinearPlayback = true
        self.controller = controller
    }

    // MARK: AVPictureInPictureSampleBufferPlaybackDelegate (a live stream: fixed answers)

    /// Ignored: a call cannot be paused from the Picture in Picture window.
    nonisolated public func pictureInPictureController(_ pictureInPictureController: AVPictureInPictureController, setPlaying playing: Bool) {}

    /// An infinite range: live content, no scrubber.
    nonisolated public func pictureInPictureControllerTimeRangeForPlayback(_ pictureInPictureController: AVPictureInPictureController) -> CMTimeRange {
        CMTimeRange(start: .negativeInfinity, duration: .positiveInfinity)
    }

    /// Never paused.
    nonisolated public func pictureInPictureControllerIsPlaybackPaused(_ pictureInPictureController: AVPictureInPictureController) -> Bool { false }

    /// Nothing to do: frames are converted at their own size and the layer scales them.
    nonisolated public func pictureInPictureController(_ pictureInPictureController: AVPictureInPictureController, didTransitionToRenderSize newRenderSize: CMVideoDimensions) {}

    /// No seeking in a live call: completes at once.
    nonisolated public func pictureInPictureController(_ pictureInPictureController: AVPictureInPictureController, skipByInterval skipInterval: CMTime, completion completionHandler: @escaping () -> Void) {
        completionHandler()
    }
}
#endif
