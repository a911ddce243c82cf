import Observability

/// One subscriber's media connection of a relayed publication (a mesh): a publishing peer
/// connection of its own, offered in a session of its own (``MeshSignaling``), with its own
/// lifecycle (``MediaConnectionController``, publisher role) and its own element in the
/// publisher's stats arrays (named by the subscriber's connection and the session's id).
final class PublicationLinkController {
    unowned let publication: RelayedPublicationController
    /// The participant it reaches (its connection id).
    let subscriber: String
    /// The peer connection towards the subscriber now (a new one after a replacement).
    private(set) var peerConnection: PeerConnectionID
    let connection: MediaConnectionController
    /// The session's handle and names, once opened.
    private(set) var link: MeshPublicationLink?
    /// The video and audio tracks' enabled state last set on this connection.
    private var videoEnabled = true
    private var audioEnabled = true

    init(publication: RelayedPublicationController, subscriber: String, peerConnection: PeerConnectionID, settings: MediaConnectionMachine.Settings) {
        self.publication = publication
        self.subscriber = subscriber
        self.peerConnection = peerConnection
        connection = MediaConnectionController(settings: settings)
        connection.role = self
    }

    var isOpen: Bool { !connection.isClosed }
    var handle: RouterHandleID? { link?.handle }
    private var publisher: CallPublisher { publication.publisher }

    // MARK: - Publishing

    /// Opens the subscriber's session, offers our media on it and sets its answer; throws what
    /// failed (the caller closes the link).
    func start(on signaling: any MeshSignaling, in session: isolated CallSession) async throws {
        let link = try await signaling.openPublication(to: FeedID(subscriber))
        guard isOpen else { return await signaling.closePublication(link.handle) }
        self.link = link
        await connection.feed(.peerConnectionStarted(peerConnection, link.handle), in: session)
        let pc = peerConnection
        try await session.engine.addLocalMedia(publisher.settings.media, to: pc)
        try await applyTracks(video: publisher.publishVideo, audio: publisher.publishAudio, in: session)
        let offer = try await session.engine.createOffer(on: pc, iceRestart: false)
        try await session.engine.setLocalDescription(offer, on: pc)
        let answer = try await signaling.offerPublication(offer, on: link.handle)
        guard isOpen else { return }
        publisher.statsMonitor.relay(pc, toConnection: link.subscriber.connectionId, subscriber: link.subscriber.subscriberId)
        for candidate in session.trickle.ready(pc, handle: link.handle) { try? await session.signaling.trickle(candidate, on: link.handle) }
        try await session.engine.setRemoteDescription(answer, on: pc)
        await connection.feed(.answerSent(pc), in: session)
    }

    /// Sets the tracks' enabled state on this connection where it differs.
    func applyTracks(video: Bool, audio: Bool, in session: isolated CallSession) async throws {
        if video != videoEnabled {
            try await session.engine.setTracksEnabled(.video, video, on: peerConnection)
            videoEnabled = video
        }
        if audio != audioEnabled {
            try await session.engine.setTracksEnabled(.audio, audio, on: peerConnection)
            audioEnabled = audio
        }
    }

    /// Stops it: no more input, its session ended (`endSession`: not when the subscriber
    /// ended it or the call is over), its peer connection closed, its stats element gone.
    /// Idempotent.
    func close(endSession: Bool, in session: isolated CallSession) async {
        guard isOpen else { return }
        connection.close()
        session.trickle.forget(peerConnection)
        publisher.statsMonitor.endRelay(peerConnection)
        session.publicationLinkPathsEnded(of: self)
        if endSession, let handle, let signaling = session.signaling as? any MeshSignaling { await signaling.closePublication(handle) }
        try? await session.engine.closePeerConnection(peerConnection)
    }

    // MARK: - Inputs

    /// An engine event of its peer connection.
    func receive(_ event: MediaEngineEvent, in session: isolated CallSession) async {
        if case .iceConnectionState(let pc, let state) = event { await connection.feed(.iceState(pc, state), in: session) }
    }

    // MARK: - Stats

    /// One stats sample: the report read by the publisher's monitor (its element in the
    /// arrays), the lifecycle fed with the selected pair's progress.
    func sample(in session: isolated CallSession) async {
        let pc = peerConnection
        guard isOpen, let report = try? await session.engine.stats(of: pc), isOpen, peerConnection == pc else { return }
        session.statsRecorder?(.publisherSample(peerConnection: pc.rawValue, report: report))
        await feed(publisher.statsMonitor.read(report, peerConnection: pc).connection, of: pc, in: session)
    }

    /// Between stats samples: the selected pair's progress, for the lifecycle only.
    func checkHealth(in session: isolated CallSession) async {
        let pc = peerConnection
        guard isOpen, let report = try? await session.engine.stats(of: pc), isOpen, peerConnection == pc else { return }
        await feed(publisher.statsMonitor.readConnection(report, peerConnection: pc), of: pc, in: session)
    }

    /// What the selected pair receives (the subscriber's RTCP and consent responses) stops
    /// when the path to it is lost.
    private func feed(_ reading: ConnectionReading, of pc: PeerConnectionID, in session: isolated CallSession) async {
        session.publicationLinkPathsSampled(reading.paths, of: self)
        let progress = reading.progress
        await connection.feed(.statsSample(pc, bytesReceived: progress.bytesReceived, responsesReceived: progress.responsesReceived), in: session)
    }
}

extension PublicationLinkController: MediaConnectionRole {
    func emit(_ kind: CallSubscriberEvent.Kind, in session: isolated CallSession) {
        publication.linkChanged(self, kind)
    }

    /// Restarts ICE towards this subscriber only: the offer goes in its session
    /// (``MeshSignaling/restartPublicationIce(offer:on:)``), its answer is set, and the
    /// subscriber's candidates held meanwhile are tried. A failure is told, and the machine goes
    /// on to its next step; an engine that cannot make the offer has lost the peer connection,
    /// which is replaced at once.
    func restartIce(on handle: RouterHandleID, in session: isolated CallSession) async {
        let pc = peerConnection
        guard let offer = try? await session.engine.createOffer(on: pc, iceRestart: true) else {
            guard isOpen, peerConnection == pc else { return }
            return await connection.feed(.restartImpossible(handle), in: session)
        }
        do {
            let answer = try await publication.signaling.restartPublicationIce(offer: offer, on: handle)
            guard isOpen, peerConnection == pc else { return }
            try await session.engine.setLocalDescription(offer, on: pc)
            try await session.engine.setRemoteDescription(answer, on: pc)
            await connection.feed(.answerSent(pc), in: session)
        } catch {
            guard isOpen else { return }
            publisher.deliver([.didFail(CallError.wrapping(error, "publisher ICE restart towards \(subscriber)"))])
        }
    }

    /// Publishes again towards this subscriber on a new peer connection, in a new session that
    /// replaces the old one (``MeshSignaling/replacePublication(_:on:)``): the subscriber keeps
    /// the stream, the other links are untouched. The old connection's element leaves the
    /// arrays; the new one is named by the new session. A failure is told; the reconnect window
    /// then ends the link.
    func replace(_ old: PeerConnectionID, handle: RouterHandleID, in session: isolated CallSession) async {
        session.trickle.forget(old)
        publisher.statsMonitor.endRelay(old)
        try? await session.engine.closePeerConnection(old)
        var made: PeerConnectionID?
        do {
            let pc = try await session.engine.makePeerConnection(session.configuration.peerConnection)
            made = pc
            guard isOpen else { throw CancellationError() }
            peerConnection = pc
            session.trickle.expect(pc)
            (videoEnabled, audioEnabled) = (true, true)      // a new connection's tracks start enabled
            try await session.engine.addLocalMedia(publisher.settings.media, to: pc)
            let wanted = await publication.signaling.subscriberWantsVideo(on: handle)
            try await applyTracks(video: publisher.publishVideo && wanted, audio: publisher.publishAudio, in: session)
            let offer = try await session.engine.createOffer(on: pc, iceRestart: false)
            try await session.engine.setLocalDescription(offer, on: pc)
            let replaced = try await publication.signaling.replacePublication(offer, on: handle)
            guard isOpen, peerConnection == pc else { throw CancellationError() }
            link = replaced.link
            await connection.feed(.peerConnectionStarted(pc, replaced.link.handle), in: session)
            publisher.statsMonitor.relay(pc, toConnection: replaced.link.subscriber.connectionId, subscriber: replaced.link.subscriber.subscriberId)
            for candidate in session.trickle.ready(pc, handle: replaced.link.handle) { try? await session.signaling.trickle(candidate, on: replaced.link.handle) }
            try await session.engine.setRemoteDescription(replaced.answer, on: pc)
            await connection.feed(.answerSent(pc), in: session)
        } catch {
            if let made, !isOpen || peerConnection != made {
                session.trickle.forget(made)
                try? await session.engine.closePeerConnection(made)
            }
            guard isOpen, !(error is CancellationError) else { return }
            publisher.deliver([.didFail(CallError.wrapping(error, "publish again to \(subscriber)"))])
        }
    }

    /// The publication's stream stays while other links carry it.
    func destroyStream(in session: isolated CallSession) {}

    func tearDown(_ peerConnection: PeerConnectionID?, handle: RouterHandleID?, in session: isolated CallSession) async {
        await publication.closeLink(to: subscriber, endSession: true, in: session)
    }
}
