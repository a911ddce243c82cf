import Observability

extension CallSession {
    /// Publishes: captures, offers (simulcast layers from the settings), takes the router's
    /// answer. Our stream is then ``CallPublisher/stream``; other participants see it as
    /// `streamCreated`. When its media path is lost the publisher reconnects by itself
    /// (``CallPublisherEvent``).
    ///
    /// In a relayed call of several friends (docs/peer-to-peer.md) it publishes one media
    /// connection per other participant, and returns once the stream is published and each
    /// connection offered, without waiting for the subscribers to accept.
    public func publish(_ publisher: CallPublisher) async throws(CallError) {
        guard let own = connection, let handle = trickle.participantHandle else { throw CallError(.notConnected, "publish: not connected") }
        guard publication == nil, relayedPublication == nil else { throw CallError(.alreadyPublishing, "publish: a publisher is already publishing") }
        if let mesh = signaling as? any MeshSignaling {
            let publication = RelayedPublicationController(publisher: publisher, signaling: mesh, settings: .init(reconnectWindow: configuration.reconnectWindow))
            relayedPublication = publication
            let subscribers = room?.roster.connections.keys.map(\.rawValue).filter { $0 != own.connectionId } ?? []
            await publication.start(as: own, subscribers: subscribers, in: self)
            return
        }
        let publication: PublicationController
        do {
            let pc = try await engine.makePeerConnection(configuration.peerConnection)
            trickle.expect(pc)
            publication = PublicationController(publisher: publisher, peerConnection: pc, settings: .init(reconnectWindow: configuration.reconnectWindow))
        } catch {
            publisher.setStream(nil)
            throw CallError.wrapping(error, "publish")
        }
        self.publication = publication
        do {
            try await publication.start(on: handle, as: own, in: self)
        } catch {
            await publication.close(.dropped, in: self)
            publisher.setStream(nil)
            throw CallError.wrapping(error, "publish")
        }
        await publication.started(in: self)
    }

    /// Stops publishing (idempotent).
    public func unpublish(_ publisher: CallPublisher) async {
        if let relayedPublication, relayedPublication.publisher === publisher {
            await relayedPublication.close(unpublished: true, in: self)
            try? await signaling.unpublish()
        }
        guard let publication, publication.publisher === publisher else { return }
        await publication.close(.unpublished, in: self)
    }

    /// The relayed publication closed: the session forgets it.
    func relayedPublicationEnded(_ publication: RelayedPublicationController) {
        if relayedPublication === publication { relayedPublication = nil }
    }

    /// One link of the relayed publication after a report: the paths to its subscriber.
    func publicationLinkPathsSampled(_ paths: ConnectionPaths, of link: PublicationLinkController) {
        let pathsWorked = delivery.participants.anyPathWorks
        deliver(delivery.participants.sample(paths, source: ObjectIdentifier(link), participant: link.subscriber))
        pathsToEveryoneChanged(worked: pathsWorked, works: delivery.participants.anyPathWorks)
    }

    /// A link of the relayed publication closed: its paths no longer count.
    func publicationLinkPathsEnded(of link: PublicationLinkController) {
        deliver(delivery.participants.subscriptionEnded(ObjectIdentifier(link)))
    }

    /// The publication closed: the session forgets it.
    func publicationEnded(_ publication: PublicationController) {
        if self.publication === publication { self.publication = nil }
    }

    /// After a republish: the participant id the router gave (the old one when it could), and
    /// the stream under it.
    func adoptParticipantID(_ join: RoomJoin, publisher: CallPublisher) {
        guard var room else { return }
        if join.participantID.rawValue != room.own.connectionId {
            let moved = CallConnection(connectionId: join.participantID.rawValue, creationTime: room.own.creationTime, data: room.own.data)
            room.own = moved
            room.roster.own = join.participantID
            if var stream = publisher.stream {
                stream.streamId = moved.connectionId
                stream.connection = moved
                stream.creationTime = wallClock()
                publisher.setStream(stream)
            }
        }
        var events = room.roster.receive(.feedsPublished(join.feeds), now: wallClock())
        if let stream = publisher.stream { events += room.roster.ownStreamPublished(stream) }
        self.room = room
        deliver(events)
    }

    /// Our stream is published, or its properties changed (``CallPublisher/publishVideo``,
    /// ``CallPublisher/publishAudio``): the router is told (others read it before subscribing),
    /// and our own `streamCreated` (or `streamPropertiesChanged`) is delivered.
    func ownStreamPublished(_ stream: CallStream, described: Bool = false) async {
        if !described { try? await signaling.describePublishedStream(PublishedStreamDescription(stream: stream).encoded()) }
        guard let events = room?.roster.ownStreamPublished(stream) else { return }
        deliver(events)
    }

    /// Our stream is gone (unpublished, or its media lost for good).
    func ownStreamEnded(_ reason: StreamDestroyedReason) {
        guard let events = room?.roster.ownStreamEnded(reason) else { return }
        deliver(events)
    }
}
