import CallScopeCore
import Calls
import Observability
import VideoFrames

/// Which sink each peer connection's frames go to, read by the frame channel's threads: every
/// connection gets a number (the sink id the page writes in each frame's header) the first
/// time it is given a sink, and keeps it.
final class FrameSinkRegistry: Sendable {
    private struct State {
        var numbers: [PeerConnectionID: UInt32] = [:]
        var connections: [UInt32: PeerConnectionID] = [:]
        var sinks: [UInt32: VideoFrameSink] = [:]
    }

    private let state = Locked(State())

    /// The connection's number (made on first use).
    func number(of id: PeerConnectionID) -> UInt32 {
        state.withLock { state in
            if let number = state.numbers[id] { return number }
            let number = UInt32(state.numbers.count + 1)
            state.numbers[id] = number
            state.connections[number] = id
            return number
        }
    }

    /// Sets or clears the connection's sink.
    func set(_ sink: VideoFrameSink?, for id: PeerConnectionID) {
        guard let sink else {
            state.withLock { state in state.numbers[id].map { state.sinks[$0] = nil } }
            return
        }
        let number = number(of: id)
        state.withLock { $0.sinks[number] = sink }
    }

    /// The connection a sink id names, if any.
    func connection(_ number: UInt32) -> PeerConnectionID? {
        state.withLock { $0.connections[number] }
    }

    /// Hands a checked frame to its connection's sink (outside the lock); a frame for a
    /// connection without a sink (cleared while the frame was on its way) is let go.
    func deliver(_ frame: FrameChannelServer.Frame) {
        let target = state.withLock { state -> (PeerConnectionID, VideoFrameSink)? in
            guard let id = state.connections[frame.sinkID], let sink = state.sinks[frame.sinkID] else { return nil }
            return (id, sink)
        }
        guard let (id, sink) = target else { return }
        sink(EngineVideoFrame(peerConnection: id, source: frame.source == .remote ? .remote : .localPreview,
                              frame: RetainedVideoFrame(frame.buffer), captureTimeMicroseconds: frame.timestampMicroseconds))
    }
}
