import Calls
import Observability
import RTCStats

/// The frame channel's counters, for the tests and the benchmark (docs/video-chromium.md).
package struct FrameChannelStatistics: Sendable, Hashable {
    /// Frames handed to sinks.
    package var frames: Int
    /// Their plane bytes.
    package var planeBytes: Int
    /// Messages not made frames (each also an event).
    package var rejected: Int
    /// CPU time of the channel's threads in this process (reading, checking, handing on).
    package var cpuNanoseconds: Int64
}

extension ChromiumMediaEngine {
    /// Delivers the connection's decoded remote video frames (for a publishing connection: its
    /// captured local video) to `sink`, on a frame-channel thread of the engine's own, until
    /// replaced or `nil`.
    ///
    /// The page reads each video track with `MediaStreamTrackProcessor` and sends every frame
    /// over a WebSocket to this process (docs/video-chromium.md; on `127.0.0.1`, or on
    /// ``ChromiumOptions/frameChannelAddress`` for a remote browser), never through
    /// WebDriver: the stats and commands are not held up by video. A frame that arrives broken
    /// (truncated planes, a zero or short stride, a size out of range) or is dropped because
    /// the sink's thread cannot keep up is reported as
    /// ``MediaEngineEvent/videoFrameRejected(_:source:reason:)``.
    /// - Throws: ``MediaEngineError`` `rejected` for an unknown connection,
    ///   `engineUnavailable` when the channel cannot listen, or the browser is a WebDriver
    ///   endpoint's and no ``ChromiumOptions/frameChannelAddress`` was given.
    public func setVideoFrameSink(_ sink: VideoFrameSink?, on id: PeerConnectionID) async throws {
        guard let sink else {
            _ = try await run("setFrameSink", [.string(id.rawValue), .null, .null])
            frameSinks.set(nil, for: id)
            return
        }
        let channel = try startFrameChannel()
        frameSinks.set(sink, for: id)
        do {
            _ = try await run("setFrameSink", [.string(id.rawValue), .number(Double(frameSinks.number(of: id))), .string(channel.url)])
        } catch {
            frameSinks.set(nil, for: id)
            throw error
        }
    }

    /// The frame channel's counters in this process; `nil` before any sink was set.
    package var frameChannelStatistics: FrameChannelStatistics? {
        frameChannel.map {
            let counters = $0.statistics
            return FrameChannelStatistics(frames: counters.frames, planeBytes: counters.planeBytes, rejected: counters.rejected,
                                          cpuNanoseconds: counters.cpuNanoseconds)
        }
    }

    /// The page's side of the counters: `frames`, `bytes`, `dropped`, and `copyMs` / `sendMs`
    /// (wall time in `copyTo` and `WebSocket.send`, summed), `formats` seen.
    package func pageFrameChannelStatistics() async throws -> JSONValue {
        try await run("frameChannelStats", [])
    }

    private func startFrameChannel() throws(MediaEngineError) -> FrameChannelServer {
        if let frameChannel { return frameChannel }
        guard let frameChannelAddress else {
            throw MediaEngineError(.engineUnavailable, "video frames from a browser on another host need an address of this host that it can "
                                       + "reach: ChromiumOptions.frameChannelAddress (callscope call --frame-address ADDR)")
        }
        let sinks = frameSinks, events = continuation
        do {
            let channel = try FrameChannelServer(address: frameChannelAddress, deliver: { sinks.deliver($0) }, reject: { rejection in
                if let number = rejection.sinkID, let id = sinks.connection(number), let source = rejection.source {
                    events.yield(.videoFrameRejected(id, source: source == .remote ? .remote : .localPreview, reason: rejection.reason))
                } else {
                    events.yield(.dropped(reason: rejection.reason))
                }
            })
            frameChannel = channel
            return channel
        } catch {
            throw MediaEngineError(.engineUnavailable, error.description)
        }
    }
}
