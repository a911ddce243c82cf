#if os(iOS) && canImport(AVKit)
import AVKit
import UIKit

/// Apple's video-call Picture in Picture around a ``SampleBufferVideoCallView``:
/// `AVPictureInPictureController.ContentSource(activeVideoCallSourceView:contentViewController:)`
/// with an `AVPictureInPictureVideoCallViewController`.
///
/// Inline, the video view fills `sourceView` (the app's call view). When Picture in Picture
/// starts, the same view moves into the system's video-call view controller, so the frames keep
/// flowing to one layer; when it stops, it moves back. The window takes the aspect ratio of the
/// upright picture (``VideoRotation/displayedSize(width:height:)``). Not compiled on Linux.
///
/// ```swift
/// let pip = VideoCallPictureInPicture(sourceView: callContainer)   // keep a strong reference
/// // frames: VideoCallFrameFeed(view: pip.videoView, pictureInPicture: pip)
/// // needs the "audio" background mode and an active .playAndRecord audio session; it then
/// // starts by itself when the app goes to the background during the call.
/// ```
@MainActor
public final class VideoCallPictureInPicture: NSObject, AVPictureInPictureControllerDelegate {
    /// The app's view the call is shown in (the system animates from and back to it).
    public let sourceView: UIView
    /// The view drawing the frames, inline in `sourceView` or inside Picture in Picture.
    public let videoView = SampleBufferVideoCallView(frame: .zero)
    /// The system's content view controller while Picture in Picture is shown.
    public let contentViewController = AVPictureInPictureVideoCallViewController()
    /// The system controller; `nil` where Picture in Picture is unsupported.
    public private(set) var controller: AVPictureInPictureController?

    /// Puts the video view in `sourceView` and wires Picture in Picture to it; it starts
    /// automatically when the app goes to the background while `sourceView` is on screen.
    public init(sourceView: UIView) {
        self.sourceView = sourceView
        super.init()
        Self.fill(sourceView, with: videoView)
        guard AVPictureInPictureController.isPictureInPictureSupported() else { return }
        let source = AVPictureInPictureController.ContentSource(activeVideoCallSourceView: sourceView, contentViewController: contentViewController)
        let controller = AVPictureInPictureController(contentSource: source)
        controller.canStartPictureInPictureAutomaticallyFromInline = true
        controller.delegate = self
        self.controller = controller
    }

    /// Tells the window the size of the picture being shown, `width` x `height` before
    /// `rotation` (the window takes its aspect ratio).
    public func pictureSizeChanged(width: Int, height: Int, rotation: VideoRotation) {
        let size = rotation.displayedSize(width: width, height: height)
        let preferred = CGSize(width: size.width, height: size.height)
        if contentViewController.preferredContentSize != preferred { contentViewController.preferredContentSize = preferred }
    }

    // MARK: AVPictureInPictureControllerDelegate: the video view follows the window

    /// Moves the video view into the system's content view controller.
    nonisolated public func pictureInPictureControllerWillStartPictureInPicture(_ pictureInPictureController: AVPictureInPictureController) {
        MainActor.assumeIsolated { Self.fill(contentViewController.view, with: videoView) }
    }

    /// Moves the video view back inline.
    nonisolated public func pictureInPictureControllerDidStopPictureInPicture(_ pictureInPictureController: AVPictureInPictureController) {
        MainActor.assumeIsolated { Self.fill(sourceView, with: videoView) }
    }

    /// Makes `view` a subview of `container` filling it.
    private static func fill(_ container: UIView, with view: UIView) {
        view.removeFromSuperview()
        view.frame = container.bounds
        view.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        container.addSubview(view)
    }
}
#endif
