import Observability

/// A relayed call's publication (a mesh, ``MeshSignaling``): one ``CallPublisher`` and one
/// stream for the app, and under them one media connection per subscriber
/// (``PublicationLinkController``), opened for every participant in the call (those there when
/// we publish, then each that joins) and closed when that participant leaves or ends its
/// session. A link that fails or ends touches no other.
///
/// The publisher's lifecycle events sum its links: `didConnect` when the first link connects,
/// `didDisconnect` / `didReconnect` for each link that loses or regains its path.
final class RelayedPublicationController {
    let publisher: CallPublisher
    let signaling: any MeshSignaling
    private let settings: MediaConnectionMachine.Settings
    /// By the subscriber's connection id.
    private(set) var links: [String: PublicationLinkController] = [:]
    private(set) var isOpen = true
    private var connected = false
    /// Each link's start (its session, offer and answer), cancelled at the end.
    private var starts: [Task<Void, Never>] = []

    init(publisher: CallPublisher, signaling: any MeshSignaling, settings: MediaConnectionMachine.Settings) {
        self.publisher = publisher
        self.signaling = signaling
        self.settings = settings
    }

    /// Publishes our stream (it exists before any subscriber is reached) and opens a link to
    /// each of `subscribers`; returns without waiting for them to accept.
    func start(as own: CallConnection, subscribers: [String], in session: isolated CallSession) async {
        // A raw report asked for is the latest sampled of each link.
        publisher.statsMonitor.setFreshReportSource(nil)
        let media = publisher.settings.media
        let stream = CallStream(streamId: own.connectionId, connection: own, creationTime: session.wallClock(),
                                hasAudio: media.audio && publisher.publishAudio, hasVideo: media.video && publisher.publishVideo,
                                name: publisher.settings.name, videoType: publisher.settings.videoType,
                                videoDimensions: media.video ? CallVideoDimensions(width: media.width, height: media.height) : nil)
        publisher.setStream(stream)
        await session.ownStreamPublished(stream)
        for subscriber in subscribers.sorted() { await open(to: subscriber, in: session) }
    }

    /// The link on `pc`, if one of ours.
    func link(on pc: PeerConnectionID) -> PublicationLinkController? {
        links.values.first { $0.peerConnection == pc }
    }

    /// The open link whose session is `handle`, if one of ours (its restart requests and the
    /// subscriber's candidates come on it).
    func link(on handle: RouterHandleID) -> PublicationLinkController? {
        links.values.first { $0.isOpen && $0.handle == handle }
    }

    /// Opens a link to `subscriber` (none when there is one): a peer connection, then its
    /// session and offer in a task of its own, so that one subscriber slow to accept holds
    /// back no other.
    func open(to subscriber: String, in session: isolated CallSession) async {
        guard isOpen, links[subscriber] == nil else { return }
        let pc: PeerConnectionID
        do {
            pc = try await session.engine.makePeerConnection(session.configuration.peerConnection)
        } catch {
            return publisher.deliver([.didFail(CallError.wrapping(error, "publish to \(subscriber)"))])
        }
        guard isOpen, links[subscriber] == nil else {
            try? await session.engine.closePeerConnection(pc)
            return
        }
        session.trickle.expect(pc)
        let link = PublicationLinkController(publication: self, subscriber: subscriber, peerConnection: pc, settings: settings)
        links[subscriber] = link
        let signaling = signaling
        // On the session's executor (it captures the isolated `session`).
        starts.append(Task { [weak self] in
            do {
                try await link.start(on: signaling, in: session)
            } catch {
                guard let self, link.isOpen else { return }
                self.publisher.deliver([.didFail(CallError.wrapping(error, "publish to \(subscriber)"))])
                await self.closeLink(to: subscriber, endSession: true, in: session)
            }
        })
    }

    /// Closes the link to `subscriber` (its session ended by us when `endSession`); the others
    /// go on.
    func closeLink(to subscriber: String, endSession: Bool, in session: isolated CallSession) async {
        guard let link = links.removeValue(forKey: subscriber) else { return }
        await link.close(endSession: endSession, in: session)
    }

    /// A lifecycle event of one link, as the publisher's.
    func linkChanged(_ link: PublicationLinkController, _ kind: CallSubscriberEvent.Kind) {
        guard let stream = publisher.stream else { return }
        switch kind {
        case .didConnect:
            guard !connected else { return }
            connected = true
            publisher.deliver([.didConnect(stream)])
        case .didDisconnect: publisher.deliver([.didDisconnect(stream)])
        case .didReconnect: publisher.deliver([.didReconnect(stream)])
        }
    }

    // MARK: - Inputs

    /// A signalling event: a participant joining gets a link, one leaving loses its link, a
    /// subscriber ending its session (a hangup on its handle) closes that link only.
    func receive(_ event: SignalingEvent, in session: isolated CallSession) async {
        switch event {
        case .participantJoined(let id, _):
            await open(to: id.rawValue, in: session)
        case .participantLeft(let id):
            await closeLink(to: id.rawValue, endSession: false, in: session)
        case .hangup(let handle, _):
            guard let link = links.values.first(where: { $0.handle == handle }) else { return }
            await closeLink(to: link.subscriber, endSession: false, in: session)
        default:
            break
        }
    }

    // MARK: - Stats

    /// One stats sample of every link, in the subscribers' order, after ``CallPublisher/publishVideo``
    /// and ``CallPublisher/publishAudio`` are applied to each.
    func sample(in session: isolated CallSession) async {
        await applyPublishedTracks(in: session)
        for subscriber in links.keys.sorted() { await links[subscriber]?.sample(in: session) }
    }

    /// Between stats samples: each link's selected-pair progress, for its lifecycle only.
    func checkHealth(in session: isolated CallSession) async {
        for subscriber in links.keys.sorted() { await links[subscriber]?.checkHealth(in: session) }
    }

    /// The switches, on every link, and each subscriber's audio fallback on its own link (its
    /// video track off there only: the others keep the video); our stream's `hasVideo` /
    /// `hasAudio` follow the switches only.
    private func applyPublishedTracks(in session: isolated CallSession) async {
        guard isOpen, var stream = publisher.stream else { return }
        let (video, audio) = (publisher.publishVideo, publisher.publishAudio)
        for subscriber in links.keys.sorted() {
            guard let handle = links[subscriber]?.handle else { continue }
            let wanted = await signaling.subscriberWantsVideo(on: handle)
            do {
                try await links[subscriber]?.applyTracks(video: video && wanted, audio: audio, in: session)
            } catch {
                publisher.deliver([.didFail(CallError.wrapping(error, "publishVideo / publishAudio towards \(subscriber)"))])
            }
        }
        let media = publisher.settings.media
        guard stream.hasVideo != (media.video && video) || stream.hasAudio != (media.audio && audio) else { return }
        stream.hasVideo = media.video && video
        stream.hasAudio = media.audio && audio
        publisher.setStream(stream)
        await session.ownStreamPublished(stream)
    }

    // MARK: - The end

    /// Stops every link; `unpublished`: the app unpublished (each session ended, the stream
    /// gone), else the call ended (nothing sent). Idempotent.
    func close(unpublished: Bool, in session: isolated CallSession) async {
        guard isOpen else { return }
        isOpen = false
        for task in starts { task.cancel() }
        starts.removeAll()
        for subscriber in links.keys.sorted() { await closeLink(to: subscriber, endSession: unpublished, in: session) }
        session.relayedPublicationEnded(self)
        if unpublished {
            publisher.setStream(nil)
            session.ownStreamEnded(.unpublished)
        }
    }
}
