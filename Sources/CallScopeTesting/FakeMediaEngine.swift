import Observability
import Calls
import CallScopeCore
import RTCStats

/// A ``MediaEngine`` for unit tests: records every call as a line (`"setRemote pc-1 offer"`),
/// answers with numbered descriptions, serves the stats a test put there, and emits the events a
/// test hands to ``emit(_:)``; a connection's video frames are the ones a test hands to
/// ``deliverVideoFrame(_:)``.
public final class FakeMediaEngine: MediaEngine, Sendable {
    private struct State {
        var calls: [String] = []
        var nextPeerConnection = 0
        var nextDescription = 0
        var reports: [PeerConnectionID: StatsReport] = [:]
        var open: Set<PeerConnectionID> = []
        var failures: [String: MediaEngineError] = [:]
        var videoFrameSinks: [PeerConnectionID: VideoFrameSink] = [:]
    }

    /// Every event a test emitted, in order.
    public let events: AsyncStream<MediaEngineEvent>
    private let continuation: AsyncStream<MediaEngineEvent>.Continuation
    private let state = Locked(State())

    /// A fresh engine.
    public init() {
        (events, continuation) = AsyncStream<MediaEngineEvent>.makeStream()
    }

    /// Every call so far, one line each.
    public var calls: [String] { state.withLock { $0.calls } }

    /// The peer connections made and not closed.
    public var openPeerConnections: Set<PeerConnectionID> { state.withLock { $0.open } }

    /// Emits an event, as a peer connection would.
    public func emit(_ event: MediaEngineEvent) { continuation.yield(event) }

    /// The report ``stats(of:)`` returns for `id` from now on.
    public func setReport(_ report: StatsReport, for id: PeerConnectionID) { state.withLock { $0.reports[id] = report } }

    /// Makes the next call whose line starts with `prefix` (e.g. `"createAnswer"`) throw `error`.
    public func failNext(_ prefix: String, with error: MediaEngineError) { state.withLock { $0.failures[prefix] = error } }

    private func record(_ line: String) throws(MediaEngineError) {
        let failure = state.withLock { state -> MediaEngineError? in
            state.calls.append(line)
            guard let prefix = state.failures.keys.first(where: { line.hasPrefix($0) }) else { return nil }
            return state.failures.removeValue(forKey: prefix)
        }
        if let failure { throw failure }
    }

    private func description(_ kind: SessionDescription.Kind) -> SessionDescription {
        let number = state.withLock { state -> Int in
            state.nextDescription += 1
            return state.nextDescription
        }
        return SessionDescription(kind: kind, sdp: "fake \(kind.rawValue) \(number)")
    }

    /// Records `make`, returns `pc-N`.
    public func makePeerConnection(_ configuration: PeerConnectionConfiguration) async throws -> PeerConnectionID {
        let id = state.withLock { state -> PeerConnectionID in
            state.nextPeerConnection += 1
            let id = PeerConnectionID("pc-\(state.nextPeerConnection)")
            state.open.insert(id)
            return id
        }
        try record("make \(id)")
        return id
    }

    /// Records `close`.
    public func closePeerConnection(_ id: PeerConnectionID) async throws {
        state.withLock { state in
            state.open.remove(id)
            state.videoFrameSinks[id] = nil
        }
        try record("close \(id)")
    }

    /// Records `addLocalMedia` with the layer rids.
    public func addLocalMedia(_ settings: LocalMediaSettings, to id: PeerConnectionID) async throws {
        try record("addLocalMedia \(id) \(settings.encodings.map(\.rid).joined(separator: ","))")
    }

    /// Records `createOffer`, returns `fake offer N`.
    public func createOffer(on id: PeerConnectionID, iceRestart: Bool) async throws -> SessionDescription {
        try record("createOffer \(id)\(iceRestart ? " iceRestart" : "")")
        return description(.offer)
    }

    /// Records `setLocal` with the SDP text.
    public func setLocalDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        try record("setLocal \(id) \(description.sdp)")
    }

    /// Records `createAnswer`, returns `fake answer N`.
    public func createAnswer(on id: PeerConnectionID) async throws -> SessionDescription {
        try record("createAnswer \(id)")
        return description(.answer)
    }

    /// Records `setRemote` with the SDP text.
    public func setRemoteDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        try record("setRemote \(id) \(description.sdp)")
    }

    /// Records `addCandidate`.
    public func addRemoteCandidate(_ candidate: IceCandidate?, on id: PeerConnectionID) async throws {
        try record("addCandidate \(id) \(candidate?.candidate ?? "end")")
    }

    /// Records `openDataChannel`.
    public func openDataChannel(label: String, on id: PeerConnectionID) async throws {
        try record("openDataChannel \(id) \(label)")
    }

    /// Records `send`.
    public func sendData(_ text: String, label: String, on id: PeerConnectionID) async throws {
        try record("send \(id) \(label)")
    }

    /// Records `setTracksEnabled`.
    public func setTracksEnabled(_ kind: MediaKind, _ enabled: Bool, on id: PeerConnectionID) async throws {
        try record("setTracksEnabled \(id) \(kind.rawValue) \(enabled)")
    }

    /// Records `setVideoFrameSink pc-N on` (or `off` for `nil`) and keeps the sink for
    /// ``deliverVideoFrame(_:)``.
    public func setVideoFrameSink(_ sink: VideoFrameSink?, on id: PeerConnectionID) async throws {
        try record("setVideoFrameSink \(id) \(sink == nil ? "off" : "on")")
        state.withLock { $0.videoFrameSinks[id] = sink }
    }

    /// The connections that have a video frame sink now.
    public var videoFrameSinks: Set<PeerConnectionID> { state.withLock { Set($0.videoFrameSinks.keys) } }

    /// Hands `frame` to the sink of its peer connection, synchronously on the caller's thread
    /// (as an engine thread would); returns whether a sink took it.
    @discardableResult
    public func deliverVideoFrame(_ frame: EngineVideoFrame) -> Bool {
        guard let sink = state.withLock({ $0.videoFrameSinks[frame.peerConnection] }) else { return false }
        sink(frame)
        return true
    }

    /// Records `stats`, returns the report set for `id` (empty when none).
    public func stats(of id: PeerConnectionID) async throws -> StatsReport {
        try record("stats \(id)")
        return state.withLock { $0.reports[id] } ?? StatsReport(entries: [])
    }

    /// Finishes ``events``.
    public func shutdown() async { continuation.finish() }
}
