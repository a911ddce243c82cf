import Calls
import Foundation
import Observability
import RTCStats

/// Every element of an async sequence with when it came.
final class TimedRecorder<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, event: Element)] = []
    private var task: Task<Void, Never>?

    init(_ sequence: AsyncStream<Element>) {
        task = Task { [weak self] in
            for await element in sequence { self?.append(element) }
        }
    }

    deinit { task?.cancel() }

    private func append(_ element: Element) { lock.withLock { stored.append((.now, element)) } }

    var entries: [(at: ContinuousClock.Instant, event: Element)] { lock.withLock { stored } }

    /// The first element at or after `start` matching `predicate`, waiting up to `timeout`.
    func first(after start: ContinuousClock.Instant, within timeout: Duration,
               _ predicate: (Element) -> Bool) async -> (at: ContinuousClock.Instant, event: Element)? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = entries.first(where: { $0.at >= start && predicate($0.event) }) { return found }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// "+1.23 s event" lines from `start` on.
    func timeline(from start: ContinuousClock.Instant) -> [String] {
        entries.filter { $0.at >= start }.map { String(format: "+%.2f s ", RealRelayedReconnectTests.seconds($0.at - start)) + "\($0.event)" }
    }
}

/// A subscriber's received video bytes (its `inbound-rtp` of kind video), read from the
/// engine every 200 ms: finer than the SDK's 1 s samples, for the time media is back.
final class VideoBytes: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, bytes: UInt64)] = []
    private var task: Task<Void, Never>?

    /// Polls the `index`th peer connection `engine` answered on (a subscriber's; the first by
    /// default).
    init(_ engine: NotedMediaEngine, answering index: Int = 0) {
        task = Task { [weak self] in
            while !Task.isCancelled {
                let answering = engine.answeringPeerConnections
                if answering.count > index, let report = try? await engine.stats(of: answering[index]) {
                    let video = report.entries(ofType: .inboundRTP).filter { $0.kind == "video" }
                    if !video.isEmpty { self?.append(UInt64(video.reduce(0) { $0 + ($1.bytesReceived ?? 0) })) }
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    deinit { task?.cancel() }

    private func append(_ bytes: UInt64) { lock.withLock { stored.append((.now, bytes)) } }

    var samples: [(at: ContinuousClock.Instant, bytes: UInt64)] { lock.withLock { stored } }

    /// "+t bytes" from `start` on.
    func samples(from start: ContinuousClock.Instant) -> [String] {
        samples.filter { $0.at >= start }.prefix(40).map { String(format: "+%.1f %llu", RealRelayedReconnectTests.seconds($0.at - start), $0.bytes) }
    }

    /// When a sample after `start` first counted more bytes than the sample before it.
    func growing(after start: ContinuousClock.Instant, within timeout: Duration) async -> ContinuousClock.Instant? {
        await first(within: timeout) { previous, sample in sample.at > start && previous.at >= start && sample.bytes > previous.bytes }
    }

    /// The first interruption after `start`: the last sample before it and the first sample
    /// that counted bytes again. An interruption is a sample with no more bytes than the one
    /// before (200 ms without video at 15 fps) or no sample for over 600 ms (the engine lists
    /// no video stream: Chromium drops it during the restart and starts a new one, whose
    /// counter starts at zero, so a lower value above zero counts as bytes again). `nil`:
    /// media never stopped.
    func interruption(after start: ContinuousClock.Instant) -> (lastBefore: ContinuousClock.Instant, back: ContinuousClock.Instant?)? {
        let all = samples
        guard let first = all.indices.dropFirst().first(where: { index in
            all[index].at > start && (all[index].bytes <= all[index - 1].bytes || all[index].at - all[index - 1].at > .milliseconds(600))
        }) else { return nil }
        let back = all.indices.dropFirst(first).first { index in
            all[index].bytes > all[index - 1].bytes || (all[index].bytes < all[index - 1].bytes && all[index].bytes > 0)
        }
        return (all[first - 1].at, back.map { all[$0].at })
    }

    private func first(within timeout: Duration,
                       _ predicate: ((at: ContinuousClock.Instant, bytes: UInt64), (at: ContinuousClock.Instant, bytes: UInt64)) -> Bool) async -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let all = samples
            if all.count >= 2, let index = all.indices.dropFirst().first(where: { predicate(all[$0 - 1], all[$0]) }) { return all[index].at }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// A media engine that passes everything to another and notes, with when, the calls of a
/// renegotiation (offers, descriptions, remote candidates) and any call that took over 250 ms:
/// what the test prints after the change.
final class NotedMediaEngine: MediaEngine, @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let engine: any MediaEngine
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, line: String)] = []
    private var answering: [PeerConnectionID] = []
    var events: AsyncStream<MediaEngineEvent> { engine.events }

    init(_ engine: any MediaEngine) { self.engine = engine }

    /// "+1.23 s line" from `start` on.
    func notes(from start: ContinuousClock.Instant) -> [String] {
        lock.withLock { stored }.filter { $0.at >= start }.map { String(format: "+%.2f s ", RealRelayedReconnectTests.seconds($0.at - start)) + $0.line }
    }

    private func timed<T>(_ name: String, always: Bool = false, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer {
            let took = ContinuousClock.now - start
            if always || took > .milliseconds(250) {
                lock.withLock { stored.append((start, name + String(format: " (%.0f ms)", RealRelayedReconnectTests.seconds(took) * 1000))) }
            }
        }
        return try await body()
    }

    func makePeerConnection(_ configuration: PeerConnectionConfiguration) async throws -> PeerConnectionID {
        try await timed("make") { try await engine.makePeerConnection(configuration) }
    }
    func closePeerConnection(_ id: PeerConnectionID) async throws { try await timed("close \(id)", always: true) { try await engine.closePeerConnection(id) } }
    func addLocalMedia(_ settings: LocalMediaSettings, to id: PeerConnectionID) async throws { try await engine.addLocalMedia(settings, to: id) }
    func createOffer(on id: PeerConnectionID, iceRestart: Bool) async throws -> SessionDescription {
        try await timed("createOffer \(id) restart \(iceRestart)", always: true) { try await engine.createOffer(on: id, iceRestart: iceRestart) }
    }
    func setLocalDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        try await timed("setLocal \(id) \(description.kind)", always: true) { try await engine.setLocalDescription(description, on: id) }
    }
    func createAnswer(on id: PeerConnectionID) async throws -> SessionDescription {
        lock.withLock { if !answering.contains(id) { answering.append(id) } }
        return try await timed("createAnswer \(id)", always: true) { try await engine.createAnswer(on: id) }
    }

    /// The peer connections answered on, first first (a subscriber's).
    var answeringPeerConnections: [PeerConnectionID] { lock.withLock { answering } }
    func setRemoteDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        try await timed("setRemote \(id) \(description.kind)", always: true) { try await engine.setRemoteDescription(description, on: id) }
    }
    func addRemoteCandidate(_ candidate: IceCandidate?, on id: PeerConnectionID) async throws {
        let address = candidate.map { $0.candidate.split(separator: " ").dropFirst(4).prefix(2).joined(separator: ":") } ?? "end"
        do {
            try await timed("addCandidate \(id) \(address)", always: true) { try await engine.addRemoteCandidate(candidate, on: id) }
        } catch {
            lock.withLock { stored.append((.now, "addCandidate \(id) \(address) refused")) }
            throw error
        }
    }
    func openDataChannel(label: String, on id: PeerConnectionID) async throws { try await engine.openDataChannel(label: label, on: id) }
    func sendData(_ text: String, label: String, on id: PeerConnectionID) async throws {
        try await timed("send \(id)") { try await engine.sendData(text, label: label, on: id) }
    }
    func setTracksEnabled(_ kind: MediaKind, _ enabled: Bool, on id: PeerConnectionID) async throws {
        try await engine.setTracksEnabled(kind, enabled, on: id)
    }
    func setVideoFrameSink(_ sink: VideoFrameSink?, on id: PeerConnectionID) async throws { try await engine.setVideoFrameSink(sink, on: id) }
    func stats(of id: PeerConnectionID) async throws -> StatsReport { try await timed("stats \(id)") { try await engine.stats(of: id) } }
    func shutdown() async { await engine.shutdown() }
}
