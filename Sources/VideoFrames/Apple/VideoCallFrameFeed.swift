#if os(iOS) && canImport(AVKit)
import CoreMedia
import CoreVideo
import Foundation

/// Feeds a call's frames to a ``SampleBufferVideoCallView`` from the thread that delivers them:
/// each frame becomes a sample buffer right there (a ``VideoFrame`` is only valid inside its
/// callback), then goes to the view on the main queue, in order.
///
/// A frame that cannot be shown (a conversion or CoreVideo failure) is a counted drop with its
/// reason, never a crash. Not compiled on Linux.
///
/// ```swift
/// let feed = VideoCallFrameFeed(pictureInPicture: pip)
/// subscriber.setVideoRenderer { frame in feed.render(frame) }   // any thread
/// ```
public final class VideoCallFrameFeed: @unchecked Sendable {
    // @unchecked Sendable: `maker`, `lastPicture` and `counts` are only touched under `lock`; the
    // view and the Picture-in-Picture object are main-actor objects only used on the main queue.
    private let lock = NSLock()
    private var maker: SampleBufferMaker
    private var lastPicture: Picture?
    private var counts = Counts()
    private let pictureInPicture: VideoCallPictureInPicture

    /// Frames shown and frames dropped, with the last reason.
    public struct Counts: Sendable, Hashable {
        /// Frames handed to the view.
        public var shown = 0
        /// Frames that could not be made sample buffers.
        public var dropped = 0
        /// Why the last frame was dropped.
        public var lastDropReason: String?
    }

    /// A feed into `pictureInPicture`'s video view, converting with `maker`.
    public init(pictureInPicture: VideoCallPictureInPicture, maker: SampleBufferMaker = SampleBufferMaker()) {
        self.pictureInPicture = pictureInPicture
        self.maker = maker
    }

    /// What the feed has done so far.
    public var counts: Counts { lock.withLock { counts } }

    /// Converts `frame` into a pooled pixel buffer and shows it; call from the frames' thread.
    public func render(_ frame: VideoFrame) {
        show(frame.width, frame.height, frame.rotation) { try $0.sampleBuffer(for: frame) }
    }

    /// Shows a decoder's pixel buffer as it is (no copy), stamped `timestamp` (90 kHz).
    public func render(pixelBuffer: CVPixelBuffer, timestamp: UInt32, rotation: VideoRotation) {
        show(CVPixelBufferGetWidth(pixelBuffer), CVPixelBufferGetHeight(pixelBuffer), rotation) {
            try $0.sampleBuffer(passingThrough: pixelBuffer, timestamp: timestamp)
        }
    }

    private func show(_ width: Int, _ height: Int, _ rotation: VideoRotation, _ make: (inout SampleBufferMaker) throws -> CMSampleBuffer) {
        let made: Result<(ReadySample, Bool), any Error> = lock.withLock {
            Result {
                let sample = ReadySample(buffer: try make(&maker))
                let picture = Picture(width: width, height: height, rotation: rotation)
                let resized = picture != lastPicture
                lastPicture = picture
                counts.shown += 1
                return (sample, resized)
            }
        }
        switch made {
        case .failure(let error):
            lock.withLock {
                counts.dropped += 1
                counts.lastDropReason = "\(error)"
            }
        case .success(let (sample, resized)):
            let pictureInPicture = pictureInPicture
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    if resized { pictureInPicture.pictureSizeChanged(width: width, height: height, rotation: rotation) }
                    pictureInPicture.videoView.enqueue(sample.buffer, rotation: rotation)
                }
            }
        }
    }
}

/// The size and rotation of the frames being shown.
private struct Picture: Equatable {
    var width: Int
    var height: Int
    var rotation: VideoRotation
}

/// A finished sample buffer on its way to the main queue.
private struct ReadySample: @unchecked Sendable {
    // @unchecked Sendable: the buffer is complete ("ready") before it is wrapped and nothing
    // writes to it afterwards; only the display layer reads it.
    let buffer: CMSampleBuffer
}
#endif
