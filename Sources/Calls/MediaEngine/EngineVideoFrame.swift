import Observability
import VideoFrames

/// Which video of a peer connection a frame comes from.
public enum VideoTrackSource: Hashable, Sendable {
    /// The decoded remote video (a subscriber's connection).
    case remote
    /// The captured local video before encoding (a publisher's connection).
    case localPreview
}

/// One decoded frame as a ``MediaEngine`` hands it over.
public struct EngineVideoFrame: Sendable {
    /// The connection whose video it is.
    public var peerConnection: PeerConnectionID
    /// Remote video or local preview.
    public var source: VideoTrackSource
    /// The picture, with what keeps its planes alive.
    public var frame: RetainedVideoFrame
    /// When the frame was captured, in microseconds on the engine's clock (Chromium's
    /// `VideoFrame.timestamp`, WebRTC's `timeStampNs / 1000`), when the engine knows it.
    public var captureTimeMicroseconds: Int64?

    /// Creates a frame.
    public init(peerConnection: PeerConnectionID, source: VideoTrackSource, frame: RetainedVideoFrame, captureTimeMicroseconds: Int64? = nil) {
        self.peerConnection = peerConnection
        self.source = source
        self.frame = frame
        self.captureTimeMicroseconds = captureTimeMicroseconds
    }
}

/// Receives a connection's frames on an engine thread; it must return quickly (queue the
/// frame, do not render it here).
public typealias VideoFrameSink = @Sendable (EngineVideoFrame) -> Void
