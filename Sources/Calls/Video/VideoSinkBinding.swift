import Observability

/// Keeps a media connection's engine sink in step with its ``VideoFrameOutput``: the output's
/// sink is set on the connection's peer connection while the output is wanted, and on each new
/// peer connection; it is removed when nobody listens any more. One per subscription and
/// publication, on the session's executor.
final class VideoSinkBinding {
    let output: VideoFrameOutput
    /// The peer connection the sink is set on.
    private(set) var boundTo: PeerConnectionID?
    private var watcher: Task<Void, Never>?

    init(output: VideoFrameOutput) {
        self.output = output
    }

    /// Sets or removes the sink so that it is on `pc` exactly when the output is wanted.
    /// - Throws: what the engine threw (then no sink is set).
    func update(peerConnection pc: PeerConnectionID?, in session: isolated CallSession) async throws {
        let wanted = output.isWanted ? pc : nil
        guard wanted != boundTo else { return }
        let previous = boundTo
        boundTo = wanted
        if let wanted {
            do {
                try await session.engine.setVideoFrameSink(output.sink, on: wanted)
            } catch {
                if boundTo == wanted { boundTo = nil }
                throw error
            }
        } else if let previous {
            // The old connection may be closed already; nothing is delivered to it then anyway.
            try? await session.engine.setVideoFrameSink(nil, on: previous)
        }
    }

    /// Whether ``watch(in:_:)`` runs.
    var isWatching: Bool { watcher != nil }

    /// Calls `changed` (on the session's executor) each time a renderer or a stream comes or
    /// goes, in order, until ``stop()``.
    func watch(in session: isolated CallSession, _ changed: @escaping @Sendable (isolated CallSession) async -> Void) {
        watcher?.cancel()
        let changes = output.demandChanges()
        watcher = Task { [weak session] in
            for await _ in changes {
                guard let session else { return }
                await changed(session)
            }
        }
    }

    /// Stops watching and finishes the output's streams.
    func stop() {
        watcher?.cancel()
        watcher = nil
        boundTo = nil
        output.finishStreams()
    }
}
