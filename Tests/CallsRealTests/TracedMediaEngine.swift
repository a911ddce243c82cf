import Calls
import CallScopeCore
import Foundation
import Observability
import RTCStats

/// A media engine that passes everything to another and keeps a timed trace of what matters
/// when a reconnection goes wrong: offers (ICE restarts marked), remote descriptions, ICE and
/// connection states, and the selected pair whenever its id or state changes or its received
/// bytes start or stop arriving (none for a second). A real test prints it when a timing misses its bound.
final class TracedMediaEngine: MediaEngine {
    private let engine: any MediaEngine
    private let lines = Locked<[String]>([])
    private let lastPair = Locked<[PeerConnectionID: PairSummary]>([:])
    let events: AsyncStream<MediaEngineEvent>

    init(_ engine: any MediaEngine) {
        self.engine = engine
        let (stream, continuation) = AsyncStream<MediaEngineEvent>.makeStream()
        events = stream
        let lines = lines
        Task {
            for await event in engine.events {
                switch event {
                case .iceConnectionState(let pc, let state): Self.note(lines, "\(pc.rawValue) ice \(state)")
                case .connectionState(let pc, let state): Self.note(lines, "\(pc.rawValue) connection \(state)")
                default: break
                }
                continuation.yield(event)
            }
            continuation.finish()
        }
    }

    /// The trace, one line per entry: unix time, peer connection, what happened.
    var trace: [String] { lines.withLock { $0 } }

    private static func note(_ lines: Locked<[String]>, _ line: String) {
        let stamped = String(format: "%.3f ", Date().timeIntervalSince1970) + line
        lines.withLock { $0.append(stamped) }
    }

    private func note(_ line: String) { Self.note(lines, line) }

    func makePeerConnection(_ configuration: PeerConnectionConfiguration) async throws -> PeerConnectionID {
        let pc = try await engine.makePeerConnection(configuration)
        note("\(pc.rawValue) made")
        return pc
    }

    func closePeerConnection(_ id: PeerConnectionID) async throws {
        note("\(id.rawValue) close")
        try await engine.closePeerConnection(id)
    }

    func addLocalMedia(_ settings: LocalMediaSettings, to id: PeerConnectionID) async throws {
        try await engine.addLocalMedia(settings, to: id)
    }

    func createOffer(on id: PeerConnectionID, iceRestart: Bool) async throws -> SessionDescription {
        note("\(id.rawValue) createOffer\(iceRestart ? " (ICE restart)" : "")")
        return try await engine.createOffer(on: id, iceRestart: iceRestart)
    }

    func setLocalDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        try await engine.setLocalDescription(description, on: id)
        note("\(id.rawValue) offer set, ufrag \(Self.ufrag(description))")
    }

    func createAnswer(on id: PeerConnectionID) async throws -> SessionDescription {
        let answer = try await engine.createAnswer(on: id)
        note("\(id.rawValue) answer set, ufrag \(Self.ufrag(answer))")
        return answer
    }

    func setRemoteDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        note("\(id.rawValue) remote \(description.kind), ufrag \(Self.ufrag(description))")
        try await engine.setRemoteDescription(description, on: id)
    }

    func addRemoteCandidate(_ candidate: IceCandidate?, on id: PeerConnectionID) async throws {
        try await engine.addRemoteCandidate(candidate, on: id)
    }

    func openDataChannel(label: String, on id: PeerConnectionID) async throws {
        try await engine.openDataChannel(label: label, on: id)
    }

    func sendData(_ text: String, label: String, on id: PeerConnectionID) async throws {
        try await engine.sendData(text, label: label, on: id)
    }

    func setTracksEnabled(_ kind: MediaKind, _ enabled: Bool, on id: PeerConnectionID) async throws {
        try await engine.setTracksEnabled(kind, enabled, on: id)
    }

    func setVideoFrameSink(_ sink: VideoFrameSink?, on id: PeerConnectionID) async throws {
        try await engine.setVideoFrameSink(sink, on: id)
    }

    func stats(of id: PeerConnectionID) async throws -> StatsReport {
        let report = try await engine.stats(of: id)
        let pair = report.selectedCandidatePair
        let bytes = pair?.number("bytesReceived") ?? 0
        let now = Date()
        let line = lastPair.withLock { last -> String? in
            let previous = last[id]
            // Two callers sample each connection: "receiving" means bytes arrived within the last second.
            let changed = previous.map { pair?.id != $0.id || bytes > $0.bytes } ?? true
            let lastRise = changed ? now : previous?.lastRise ?? now
            let rising = now.timeIntervalSince(lastRise) < 1
            let summary = PairSummary(id: pair?.id, state: pair?.string("state"), bytes: bytes, lastRise: lastRise, rising: rising)
            last[id] = summary
            guard previous.map({ $0.id != summary.id || $0.state != summary.state || $0.rising != summary.rising }) ?? true else { return nil }
            guard let pair else { return "no selected pair" }
            return "selected \(pair.id) \(summary.state ?? "?"), \(rising ? "receiving" : "nothing received"): \(Int(bytes)) B, "
                + "\(Int(pair.number("responsesReceived") ?? 0)) responses"
        }
        if let line { note("\(id.rawValue) \(line)") }
        return report
    }

    func shutdown() async {
        await engine.shutdown()
    }

    private struct PairSummary {
        var id: String?
        var state: String?
        var bytes: Double
        var lastRise: Date
        var rising: Bool
    }

    private static func ufrag(_ description: SessionDescription) -> String {
        description.sdp.split(whereSeparator: \.isNewline).first { $0.hasPrefix("a=ice-ufrag:") }.map { String($0.dropFirst(12)) } ?? "-"
    }
}
