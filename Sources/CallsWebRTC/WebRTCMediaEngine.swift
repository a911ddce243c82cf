#if canImport(WebRTC)
import AVFoundation
import Calls
import CoreMedia
import Foundation
import Observability
import RTCStats
@preconcurrency import WebRTC

/// The `Calls` ``MediaEngine`` over Apple's (Google's) `WebRTC.framework`: one
/// `RTCPeerConnection` per ``PeerConnectionID``, their delegate callbacks as one ordered
/// ``events`` stream.
///
/// Thin on purpose: it translates calls and callbacks, it decides nothing (the session and its
/// reconnection machines do). Local video comes from the front camera unless
/// ``Options/videoSource`` hands the `RTCVideoSource` to the app (custom video, a screen).
public final class WebRTCMediaEngine: MediaEngine, @unchecked Sendable {
    // @unchecked Sendable: every mutable member (`table`) is only touched under `lock`; the
    // framework's objects are used from whichever thread calls, which libwebrtc's Objective-C
    // API allows (it marshals onto its own signaling thread).

    /// What the engine does beyond the protocol.
    public struct Options: @unchecked Sendable {
        // @unchecked Sendable: the closure is called once per published track, on the caller's
        // thread, with a source the engine does not touch afterwards.

        /// Receives each new local video source instead of the engine starting the front
        /// camera; `nil` (the default) starts the front camera (`RTCCameraVideoCapturer`).
        public var videoSource: ((RTCVideoSource) -> Void)?

        /// Creates options.
        public init(videoSource: ((RTCVideoSource) -> Void)? = nil) {
            self.videoSource = videoSource
        }
    }

    /// Every peer connection's events, in the order the framework called us.
    public let events: AsyncStream<MediaEngineEvent>
    private let continuation: AsyncStream<MediaEngineEvent>.Continuation
    private let factory: RTCPeerConnectionFactory
    private let options: Options
    private let lock = NSLock()
    private var table = ConnectionTable()

    /// An engine on `factory` (by default one with the framework's default video codecs).
    public init(factory: RTCPeerConnectionFactory? = nil, options: Options = .init()) {
        self.factory = factory ?? RTCPeerConnectionFactory(encoderFactory: RTCDefaultVideoEncoderFactory(),
                                                           decoderFactory: RTCDefaultVideoDecoderFactory())
        self.options = options
        (events, continuation) = AsyncStream<MediaEngineEvent>.makeStream()
    }

    // MARK: - Peer connections

    /// Creates an `RTCPeerConnection` (unified plan, the given ICE servers).
    public func makePeerConnection(_ configuration: PeerConnectionConfiguration) async throws -> PeerConnectionID {
        let rtcConfiguration = RTCConfiguration()
        rtcConfiguration.sdpSemantics = .unifiedPlan
        if !configuration.iceServers.isEmpty {
            rtcConfiguration.iceServers = [RTCIceServer(urlStrings: configuration.iceServers, username: configuration.username,
                                                        credential: configuration.credential)]
        }
        let id = withLock { table.nextID() }
        let observer = PeerConnectionObserver(id: id, continuation: continuation)
        let constraints = RTCMediaConstraints(mandatoryConstraints: nil, optionalConstraints: nil)
        // Nonnull in older framework headers, nullable in newer ones: typed optional for both.
        let made: RTCPeerConnection? = factory.peerConnection(with: rtcConfiguration, constraints: constraints, delegate: observer)
        guard let peer = made else {
            throw MediaEngineError(.engineUnavailable, "RTCPeerConnectionFactory returned no peer connection")
        }
        withLock { table.connections[id] = Connection(peer: peer, observer: observer) }
        return id
    }

    /// Closes the connection (and stops its camera); unknown ids do nothing.
    public func closePeerConnection(_ id: PeerConnectionID) async throws {
        guard let connection = withLock({ table.connections.removeValue(forKey: id) }) else { return }
        connection.capturer?.stopCapture()
        connection.peer.close()
    }

    /// Adds send-only audio and video transceivers, video with the simulcast encodings.
    public func addLocalMedia(_ settings: LocalMediaSettings, to id: PeerConnectionID) async throws {
        let connection = try connection(id)
        if settings.audio {
            let track = factory.audioTrack(with: factory.audioSource(with: nil), trackId: "audio-\(id.rawValue)")
            let transceiverInit = RTCRtpTransceiverInit()
            transceiverInit.direction = .sendOnly
            transceiverInit.streamIds = ["callscope-\(id.rawValue)"]
            if let bitrate = settings.audioMaxBitrate {
                let encoding = RTCRtpEncodingParameters()
                encoding.maxBitrateBps = NSNumber(value: bitrate)
                transceiverInit.sendEncodings = [encoding]
            }
            let transceiver: RTCRtpTransceiver? = connection.peer.addTransceiver(with: track, init: transceiverInit)
            guard transceiver != nil else {
                throw MediaEngineError(.rejected, "addTransceiver(audio) failed on \(id)")
            }
        }
        if settings.video {
            let source = factory.videoSource()
            let track = factory.videoTrack(with: source, trackId: "video-\(id.rawValue)")
            let transceiverInit = RTCRtpTransceiverInit()
            transceiverInit.direction = .sendOnly
            transceiverInit.streamIds = ["callscope-\(id.rawValue)"]
            transceiverInit.sendEncodings = settings.encodings.map { layer in
                let encoding = RTCRtpEncodingParameters()
                encoding.rid = layer.rid
                encoding.isActive = true
                encoding.scaleResolutionDownBy = NSNumber(value: layer.scaleResolutionDownBy)
                encoding.maxBitrateBps = NSNumber(value: layer.maxBitrate)
                return encoding
            }
            let transceiver: RTCRtpTransceiver? = connection.peer.addTransceiver(with: track, init: transceiverInit)
            guard transceiver != nil else {
                throw MediaEngineError(.rejected, "addTransceiver(video) failed on \(id)")
            }
            if let handOver = options.videoSource {
                handOver(source)
            } else {
                let capturer = RTCCameraVideoCapturer(delegate: source)
                try await startFrontCamera(capturer, settings: settings)
                withLock { table.connections[id]?.capturer = capturer }
            }
        }
    }

    /// The front camera (or the first one) in the format closest to the settings' size.
    private func startFrontCamera(_ capturer: RTCCameraVideoCapturer, settings: LocalMediaSettings) async throws {
        let devices = RTCCameraVideoCapturer.captureDevices()
        guard let device = devices.first(where: { $0.position == .front }) ?? devices.first else {
            throw MediaEngineError(.rejected, "no camera")
        }
        let formats = RTCCameraVideoCapturer.supportedFormats(for: device)
        let wanted = settings.width * settings.height
        let format = formats.min { lhs, rhs in
            let l = CMVideoFormatDescriptionGetDimensions(lhs.formatDescription), r = CMVideoFormatDescriptionGetDimensions(rhs.formatDescription)
            return abs(Int(l.width) * Int(l.height) - wanted) < abs(Int(r.width) * Int(r.height) - wanted)
        }
        guard let format else { throw MediaEngineError(.rejected, "the camera offers no format") }
        let maximumRate = format.videoSupportedFrameRateRanges.map(\.maxFrameRate).max() ?? Double(settings.frameRate)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            capturer.startCapture(with: device, format: format, fps: min(settings.frameRate, Int(maximumRate))) { error in
                if let error { done.resume(throwing: MediaEngineError(.rejected, "camera: \(error.localizedDescription)")) } else { done.resume() }
            }
        }
    }

    // MARK: - Descriptions and candidates

    /// `offer(for:)` (with `IceRestart` when asked); not set.
    public func createOffer(on id: PeerConnectionID, iceRestart: Bool) async throws -> SessionDescription {
        let peer = try connection(id).peer
        let constraints = RTCMediaConstraints(mandatoryConstraints: iceRestart ? [kRTCMediaConstraintsIceRestart: kRTCMediaConstraintsValueTrue] : nil,
                                              optionalConstraints: nil)
        let sdp = try await withCheckedThrowingContinuation { (done: CheckedContinuation<String, any Error>) in
            peer.offer(for: constraints) { description, error in
                if let description { done.resume(returning: description.sdp) } else { done.resume(throwing: Self.failure("createOffer", error)) }
            }
        }
        return SessionDescription(kind: .offer, sdp: sdp)
    }

    /// `setLocalDescription` with an offer from ``createOffer(on:iceRestart:)``.
    public func setLocalDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        try await setLocal(description, on: try connection(id).peer)
    }

    /// `answer(for:)`, then `setLocalDescription`.
    public func createAnswer(on id: PeerConnectionID) async throws -> SessionDescription {
        let peer = try connection(id).peer
        let constraints = RTCMediaConstraints(mandatoryConstraints: nil, optionalConstraints: nil)
        let sdp = try await withCheckedThrowingContinuation { (done: CheckedContinuation<String, any Error>) in
            peer.answer(for: constraints) { description, error in
                if let description { done.resume(returning: description.sdp) } else { done.resume(throwing: Self.failure("createAnswer", error)) }
            }
        }
        try await setLocal(SessionDescription(kind: .answer, sdp: sdp), on: peer)
        return SessionDescription(kind: .answer, sdp: sdp)
    }

    private func setLocal(_ description: SessionDescription, on peer: RTCPeerConnection) async throws {
        let rtc = RTCSessionDescription(type: description.kind == .offer ? .offer : .answer, sdp: description.sdp)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            peer.setLocalDescription(rtc) { error in
                if let error { done.resume(throwing: Self.failure("setLocalDescription", error)) } else { done.resume() }
            }
        }
    }

    /// `setRemoteDescription`.
    public func setRemoteDescription(_ description: SessionDescription, on id: PeerConnectionID) async throws {
        let peer = try connection(id).peer
        let rtc = RTCSessionDescription(type: description.kind == .offer ? .offer : .answer, sdp: description.sdp)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            peer.setRemoteDescription(rtc) { error in
                if let error { done.resume(throwing: Self.failure("setRemoteDescription", error)) } else { done.resume() }
            }
        }
    }

    /// `add(_:completionHandler:)`; the end of candidates needs no call in this API.
    public func addRemoteCandidate(_ candidate: IceCandidate?, on id: PeerConnectionID) async throws {
        let peer = try connection(id).peer
        guard let candidate else { return }
        let rtc = RTCIceCandidate(sdp: candidate.candidate, sdpMLineIndex: Int32(clamping: candidate.sdpMLineIndex ?? 0),
                                  sdpMid: candidate.sdpMid)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            peer.add(rtc) { error in
                if let error { done.resume(throwing: Self.failure("addIceCandidate", error)) } else { done.resume() }
            }
        }
    }

    // MARK: - Data, tracks, stats

    /// `dataChannel(forLabel:configuration:)`, ordered and reliable.
    public func openDataChannel(label: String, on id: PeerConnectionID) async throws {
        let connection = try connection(id)
        let configuration = RTCDataChannelConfiguration()
        configuration.isOrdered = true
        let made: RTCDataChannel? = connection.peer.dataChannel(forLabel: label, configuration: configuration)
        guard let channel = made else {
            throw MediaEngineError(.rejected, "dataChannel(forLabel: \(label)) failed on \(id)")
        }
        connection.observer.watch(channel)
    }

    /// `sendData` on the open channel labelled `label` (ours or the remote side's).
    public func sendData(_ text: String, label: String, on id: PeerConnectionID) async throws {
        let connection = try connection(id)
        guard let channel = connection.observer.channel(label), channel.readyState == .open else {
            throw MediaEngineError(.rejected, "no open data channel \(label) on \(id)")
        }
        guard channel.sendData(RTCDataBuffer(data: Data(text.utf8), isBinary: false)) else {
            throw MediaEngineError(.rejected, "sendData on \(label) failed")
        }
    }

    /// `isEnabled` of the sent (senders') and received (receivers') tracks of `kind`.
    public func setTracksEnabled(_ kind: MediaKind, _ enabled: Bool, on id: PeerConnectionID) async throws {
        let peer = try connection(id).peer
        let tracks = peer.senders.compactMap(\.track) + peer.receivers.compactMap(\.track)
        for track in tracks where track.kind == kind.rawValue { track.isEnabled = enabled }
    }

    /// Not yet: this engine does not deliver video frames.
    /// - Throws: ``MediaEngineError`` `unsupported`.
    public func setVideoFrameSink(_ sink: VideoFrameSink?, on id: PeerConnectionID) async throws {
        throw MediaEngineError(.unsupported, "video frames not yet delivered by this engine (WebRTCMediaEngine)")
    }

    /// `statistics(completionHandler:)`, converted by ``StatsReport/init(appleStatistics:)``.
    public func stats(of id: PeerConnectionID) async throws -> StatsReport {
        let peer = try connection(id).peer
        return await withCheckedContinuation { (done: CheckedContinuation<StatsReport, Never>) in
            peer.statistics { report in done.resume(returning: StatsReport(appleStatistics: report)) }
        }
    }

    /// Closes every connection; ``events`` finishes.
    public func shutdown() async {
        let connections = withLock { () -> [Connection] in
            defer { table.connections.removeAll() }
            return Array(table.connections.values)
        }
        for connection in connections {
            connection.capturer?.stopCapture()
            connection.peer.close()
        }
        continuation.finish()
    }

    // MARK: - Support

    private func connection(_ id: PeerConnectionID) throws -> Connection {
        guard let connection = withLock({ table.connections[id] }) else {
            throw MediaEngineError(.unknownPeerConnection, "no peer connection \(id)")
        }
        return connection
    }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private static func failure(_ step: String, _ error: (any Error)?) -> MediaEngineError {
        MediaEngineError(.rejected, "\(step): \(error?.localizedDescription ?? "no description and no error")")
    }
}

/// The engine's connections, by id.
struct ConnectionTable {
    var connections: [PeerConnectionID: Connection] = [:]
    private var counter = 0

    mutating func nextID() -> PeerConnectionID {
        counter += 1
        return PeerConnectionID("pc-\(counter)")
    }
}

/// One `RTCPeerConnection` with its delegate and camera.
struct Connection {
    let peer: RTCPeerConnection
    let observer: PeerConnectionObserver
    var capturer: RTCCameraVideoCapturer?
}
#endif
