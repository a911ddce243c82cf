import Foundation
import Observability

/// The session's publication: the publishing peer connection on the participant handle, its
/// lifecycle (``MediaConnectionController``), the video track's enabled state, and the
/// sender-stats messages it sends. A republish replaces the peer connection (and handle), not
/// the controller.
final class PublicationController {
    let publisher: CallPublisher
    let connection: MediaConnectionController
    /// The peer connection publishing now (a new one during a republish, before the machine has
    /// it).
    private(set) var peerConnection: PeerConnectionID
    /// ``CallPublisher/publishVideo`` as last applied (our stream's `hasVideo`, the sender stats'
    /// `videoEnabled`).
    private var videoEnabled = true
    /// The video track's enabled state last set on the engine: off also while a relayed
    /// publication's subscriber fell back to audio.
    private var videoTrackEnabled = true
    /// The engine's local preview of the publishing peer connection, to the publisher's video output.
    private let video: VideoSinkBinding
    /// The audio track's enabled state last set on the engine.
    private var audioEnabled = true

    init(publisher: CallPublisher, peerConnection: PeerConnectionID, settings: MediaConnectionMachine.Settings) {
        self.publisher = publisher
        self.peerConnection = peerConnection
        connection = MediaConnectionController(settings: settings)
        video = VideoSinkBinding(output: publisher.videoOutput)
        connection.role = self
    }

    /// The peer connection publishing now; the monitor's fresh raw reports come from it, and
    /// what it kept of `old` is dropped.
    private func publish(on pc: PeerConnectionID, replacing old: PeerConnectionID?, in session: isolated CallSession) {
        peerConnection = pc
        let engine = session.engine
        publisher.statsMonitor.setFreshReportSource { (try? await engine.stats(of: pc)).map { (pc, $0) } }
        if let old { publisher.statsMonitor.forget(peerConnection: old) }
    }

    var isOpen: Bool { !connection.isClosed }

    /// The engine's sink on the publishing peer connection exactly while the publisher's video
    /// output is wanted; its renderer and streams coming and going are watched from the first
    /// call on.
    func updateVideoSink(in session: isolated CallSession) async {
        guard isOpen else { return }
        if !video.isWatching {
            let publisher = publisher
            video.watch(in: session) { session in
                guard let publication = session.publication, publication.publisher === publisher else { return }
                await publication.updateVideoSink(in: session)
            }
        }
        do {
            try await video.update(peerConnection: peerConnection, in: session)
        } catch {
            publisher.deliver([.didFail(CallError.wrapping(error, "video frames"))])
        }
    }

    // MARK: - Publishing

    /// Captures, offers (simulcast layers from the settings), takes the router's answer on the
    /// participant handle `handle`; throws what failed (the caller closes it).
    func start(on handle: RouterHandleID, as own: CallConnection, in session: isolated CallSession) async throws {
        await connection.feed(.peerConnectionStarted(peerConnection, handle), in: session)
        let pc = peerConnection
        publish(on: pc, replacing: nil, in: session)
        await updateVideoSink(in: session)
        let offer = try await prepareOffer(on: pc, in: session)
        // Described before publishing: the router's first announcement of our feed carries it.
        let stream = ownStream(as: own, in: session)
        try? await session.signaling.describePublishedStream(PublishedStreamDescription(stream: stream).encoded())
        let answer = try await session.signaling.publish(offer: offer)
        if let relayed = session.signaling as? any RelayedSignaling, let subscriber = await relayed.publicationSubscriber() {
            publisher.statsMonitor.relay(pc, toConnection: subscriber.connectionId, subscriber: subscriber.subscriberId)
        }
        // Published: the stream exists before the connection can report anything about it.
        publisher.setStream(stream)
        await session.ownStreamPublished(stream, described: true)
        for candidate in session.trickle.ready(pc, handle: handle) { try? await session.signaling.trickle(candidate, on: handle) }
        try await session.engine.setRemoteDescription(answer, on: pc)
    }

    /// Our stream as the settings and switches say now, created now.
    private func ownStream(as own: CallConnection, in session: isolated CallSession) -> CallStream {
        let settings = publisher.settings
        let media = settings.media
        return CallStream(streamId: own.connectionId, connection: own, creationTime: session.wallClock(),
                          hasAudio: media.audio && audioEnabled, hasVideo: media.video && videoEnabled, name: settings.name,
                          videoType: settings.videoType,
                          videoDimensions: media.video ? CallVideoDimensions(width: media.width, height: media.height) : nil)
    }

    /// The answer is set: the negotiation is over.
    func started(in session: isolated CallSession) async {
        await connection.feed(.answerSent(peerConnection), in: session)
    }

    /// Local media (and the sender-stats channel) on `pc`, then the offer, set.
    private func prepareOffer(on pc: PeerConnectionID, in session: isolated CallSession) async throws -> SessionDescription {
        try await session.engine.addLocalMedia(publisher.settings.media, to: pc)
        if publisher.settings.senderStatsTrack {
            try await session.engine.openDataChannel(label: CallPublisher.senderStatsChannel, on: pc)
        }
        let offer = try await session.engine.createOffer(on: pc, iceRestart: false)
        try await session.engine.setLocalDescription(offer, on: pc)
        return offer
    }

    /// How a publication ends.
    enum Ending {
        /// The app unpublished: the feed is taken down at the router, then the connection
        /// closed; the stream is gone.
        case unpublished
        /// The lifecycle gave up (the window ran out): the connection closed, then the feed
        /// taken down; the stream is gone.
        case tornDown
        /// The session ended or lost the router: the connection closed, nothing sent.
        case dropped
    }

    /// Stops it: it takes no more input, the session forgets it, and what `ending` says is
    /// closed. The participant handle (our membership of the room) stays. Idempotent.
    func close(_ ending: Ending, in session: isolated CallSession) async {
        guard isOpen else { return }
        connection.close()
        video.stop()
        publisher.statsMonitor.setFreshReportSource(nil)
        session.publicationEnded(self)
        session.publicationPathsEnded(of: self)
        session.trickle.forget(peerConnection)
        if ending == .unpublished { try? await session.signaling.unpublish() }
        try? await session.engine.closePeerConnection(peerConnection)
        if ending == .tornDown { try? await session.signaling.unpublish() }
        if ending != .dropped {
            publisher.setStream(nil)
            session.ownStreamEnded(ending == .unpublished ? .unpublished : .mediaLost)
        }
    }

    // MARK: - Inputs

    /// An engine event of the publishing peer connection.
    func receive(_ event: MediaEngineEvent, in session: isolated CallSession) async {
        switch event {
        case .iceConnectionState(let pc, let state): await connection.feed(.iceState(pc, state), in: session)
        case .videoFrameRejected(_, _, let reason): publisher.videoOutput.rejectFrame(reason: reason)
        default: break
        }
    }

    /// A router event on the participant handle.
    func receive(_ event: SignalingEvent, in session: isolated CallSession) async {
        switch event {
        case .mediaUp(let handle): await connection.feed(.routerMediaUp(handle), in: session)
        case .hangup(let handle, _): await connection.feed(.routerHangup(handle), in: session)
        default: break
        }
    }

    // MARK: - Stats

    /// One stats sample: ``CallPublisher/publishVideo`` applied, the report read once by the
    /// monitor, its sender-stats message (saying whether the camera is on: subscribers cannot
    /// tell a disabled track's black frames from video) encoded once and sent, the lifecycle fed.
    func sample(in session: isolated CallSession) async {
        await applyPublishedTracks(in: session)
        let pc = peerConnection
        guard isOpen, let report = try? await session.engine.stats(of: pc) else { return }
        session.statsRecorder?(.publisherSample(peerConnection: pc.rawValue, report: report))
        let reading = publisher.statsMonitor.read(report, peerConnection: pc)
        if var message = reading.senderStats {
            message.videoEnabled = videoEnabled
            try? await session.engine.sendData(String(decoding: message.encoded(), as: UTF8.self), label: CallPublisher.senderStatsChannel, on: pc)
        }
        await feed(reading.connection, of: pc, in: session)
    }

    /// Between stats samples: the selected pair's progress, for the lifecycle only.
    func checkHealth(in session: isolated CallSession) async {
        let pc = peerConnection
        guard let report = try? await session.engine.stats(of: pc), isOpen, peerConnection == pc else { return }
        await feed(publisher.statsMonitor.readConnection(report, peerConnection: pc), of: pc, in: session)
    }

    /// What the selected pair receives (the router's RTCP and consent responses) stops when
    /// the path is lost; what it sends does not.
    private func feed(_ reading: ConnectionReading, of pc: PeerConnectionID, in session: isolated CallSession) async {
        let progress = reading.progress
        session.publicationPathsSampled(reading.paths, of: self)
        await connection.feed(.statsSample(pc, bytesReceived: progress.bytesReceived, responsesReceived: progress.responsesReceived), in: session)
    }

    /// Applies ``CallPublisher/publishVideo`` and ``CallPublisher/publishAudio`` to the tracks
    /// when they changed; our stream's `hasVideo` / `hasAudio` follow, and the router is told.
    /// In a relayed call the video track is also off while the friend's layer policy fell back
    /// to audio (``RelayedSignaling/publicationSubscriberWantsVideo()``): it asked us to lower
    /// what we send it, there being no router to stop forwarding. That is no change of our
    /// stream: its `hasVideo` follows the switch only.
    private func applyPublishedTracks(in session: isolated CallSession) async {
        let (video, audio) = (publisher.publishVideo, publisher.publishAudio)
        let wanted = await (session.signaling as? any RelayedSignaling)?.publicationSubscriberWantsVideo() ?? true
        let track = video && wanted
        guard isOpen, track != videoTrackEnabled || video != videoEnabled || audio != audioEnabled else { return }
        do {
            if track != videoTrackEnabled {
                try await session.engine.setTracksEnabled(.video, track, on: peerConnection)
                videoTrackEnabled = track
            }
            videoEnabled = video
            if audio != audioEnabled {
                try await session.engine.setTracksEnabled(.audio, audio, on: peerConnection)
                audioEnabled = audio
            }
        } catch {
            session.deliver([.didFail(CallError.wrapping(error, "publishVideo / publishAudio"))])
        }
        let media = publisher.settings.media
        guard var stream = publisher.stream,
              stream.hasVideo != (media.video && videoEnabled) || stream.hasAudio != (media.audio && audioEnabled) else { return }
        stream.hasVideo = media.video && videoEnabled
        stream.hasAudio = media.audio && audioEnabled
        publisher.setStream(stream)
        await session.ownStreamPublished(stream)
    }
}

extension PublicationController: MediaConnectionRole {
    func emit(_ kind: CallSubscriberEvent.Kind, in session: isolated CallSession) {
        guard let stream = publisher.stream else { return }
        switch kind {
        case .didConnect: publisher.deliver([.didConnect(stream)])
        case .didDisconnect: publisher.deliver([.didDisconnect(stream)])
        case .didReconnect: publisher.deliver([.didReconnect(stream)])
        }
    }

    /// Our offer with new ICE credentials, on the participant handle; set locally only once
    /// the router has answered it. Set first, the engine's new candidates start checking at
    /// once, still with the router's old credentials: a check the router answers before it
    /// restarts makes a pair the engine selects and the restarted router no longer answers
    /// (seen with Chromium and Janus: one response, no media, until the next restart).
    /// An engine that cannot make the restart offer has lost the peer connection: it is
    /// replaced at once (``MediaConnectionMachine/Input/restartImpossible(_:)``).
    func restartIce(on handle: RouterHandleID, in session: isolated CallSession) async {
        let pc = peerConnection
        guard let offer = try? await session.engine.createOffer(on: pc, iceRestart: true) else {
            guard isOpen, peerConnection == pc else { return }
            return await connection.feed(.restartImpossible(handle), in: session)
        }
        do {
            let answer = try await session.signaling.restartPublisherIce(offer: offer)
            guard isOpen, peerConnection == pc else { return }
            try await session.engine.setLocalDescription(offer, on: pc)
            try await session.engine.setRemoteDescription(answer, on: pc)
            await connection.feed(.answerSent(pc), in: session)
        } catch {
            publisher.deliver([.didFail(CallError.wrapping(error, "publisher ICE restart"))])
        }
    }

    /// A new peer connection published on a new participant handle. Our connection (and the
    /// stream's id) follow the router's new participant id when it could not keep the old one.
    func replace(_ old: PeerConnectionID, handle: RouterHandleID, in session: isolated CallSession) async {
        session.trickle.forget(old)
        try? await session.engine.closePeerConnection(old)
        guard let own = session.connection else { return }
        var made: PeerConnectionID?
        do {
            let pc = try await session.engine.makePeerConnection(session.configuration.peerConnection)
            made = pc
            session.trickle.expect(pc)
            publish(on: pc, replacing: old, in: session)
            await updateVideoSink(in: session)
            let offer = try await prepareOffer(on: pc, in: session)
            let result = try await session.signaling.republish(offer: offer, display: own.data, participantID: FeedID(own.connectionId))
            guard isOpen, peerConnection == pc else {
                // Unpublished (or the session ended) while we waited: take the new feed down again.
                session.trickle.forget(pc)
                try? await session.engine.closePeerConnection(pc)
                try? await session.signaling.unpublish()
                return
            }
            let handle = result.join.participantHandle
            session.trickle.participantHandle = handle
            session.adoptParticipantID(result.join, publisher: publisher)
            if let relayed = session.signaling as? any RelayedSignaling, let subscriber = await relayed.publicationSubscriber() {
                // The new session names the link: the old connection's element goes.
                publisher.statsMonitor.endRelay(old)
                publisher.statsMonitor.relay(pc, toConnection: subscriber.connectionId, subscriber: subscriber.subscriberId)
            }
            await connection.feed(.peerConnectionStarted(pc, handle), in: session)
            for candidate in session.trickle.ready(pc, handle: handle) { try? await session.signaling.trickle(candidate, on: handle) }
            try await session.engine.setRemoteDescription(result.answer, on: pc)
            await connection.feed(.answerSent(pc), in: session)
        } catch {
            if let made, isOpen, peerConnection == made { session.trickle.forget(made) }
            publisher.deliver([.didFail(CallError.wrapping(error, "publish again on a new handle"))])
        }
    }

    func destroyStream(in session: isolated CallSession) {
        guard let stream = publisher.stream else { return }
        publisher.deliver([.streamDestroyed(stream, reason: .mediaLost)])
    }

    func tearDown(_ peerConnection: PeerConnectionID?, handle: RouterHandleID?, in session: isolated CallSession) async {
        await close(.tornDown, in: session)
    }
}
