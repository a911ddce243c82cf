import Calls
import CoreGraphics
import Foundation
import VideoFrames
@preconcurrency import WebRTC

/// The `RTCVideoRenderer` of one peer connection's remote video or local preview: attached to
/// each of its video tracks, it wraps every frame (``WebRTCFrameWrapping``, no copy where the
/// buffer allows) and hands it to the connection's ``VideoFrameSink`` on WebRTC's thread.
///
/// A frame that is not a valid ``VideoFrame`` is not delivered: it becomes a
/// ``MediaEngineEvent/videoFrameRejected(_:source:reason:)`` event with the reason.
final class VideoFrameForwarder: NSObject, RTCVideoRenderer, @unchecked Sendable {
    // @unchecked Sendable: `sink` and `tracks` are only touched under `lock`; `id`, `source`
    // and `continuation` are immutable and Sendable.
    let id: PeerConnectionID
    let source: VideoTrackSource
    private let continuation: AsyncStream<MediaEngineEvent>.Continuation
    private let lock = NSLock()
    private var sink: VideoFrameSink?
    /// The tracks rendered, by track id (`RTCRtpReceiver.track` returns a new object each time).
    private var tracks: [String: RTCVideoTrack] = [:]

    init(id: PeerConnectionID, source: VideoTrackSource, continuation: AsyncStream<MediaEngineEvent>.Continuation) {
        self.id = id
        self.source = source
        self.continuation = continuation
    }

    /// Frames go to `sink` from the next one on; `nil` stops delivery.
    func setSink(_ sink: VideoFrameSink?) {
        lock.withLock { self.sink = sink }
    }

    /// Renders `track`'s frames (once, however often it is called for the same track).
    func attach(_ track: RTCVideoTrack) {
        let isNew = lock.withLock {
            guard tracks[track.trackId] == nil else { return false }
            tracks[track.trackId] = track
            return true
        }
        if isNew { track.add(self) }
    }

    /// Stops rendering every track (the connection closes).
    func detachAll() {
        let attached = lock.withLock {
            defer { tracks.removeAll() }
            return Array(tracks.values)
        }
        for track in attached { track.remove(self) }
    }

    // MARK: - RTCVideoRenderer

    /// Nothing to do: every frame carries its own size.
    func setSize(_ size: CGSize) {}

    /// Wraps and delivers `frame`, or reports why it cannot be.
    func renderFrame(_ frame: RTCVideoFrame?) {
        guard let frame, let sink = lock.withLock({ sink }) else { return }
        do {
            let retained = try WebRTCFrameWrapping.retained(frame)
            sink(EngineVideoFrame(peerConnection: id, source: source, frame: retained, captureTimeMicroseconds: frame.timeStampNs / 1_000))
        } catch {
            continuation.yield(.videoFrameRejected(id, source: source, reason: "\(error)"))
        }
    }
}
