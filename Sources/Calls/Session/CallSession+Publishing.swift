import Observability
import Foundation

/// The publisher's peer connection and its reconnection machine.
struct PublishingState: Sendable {
    let publisher: CallPublisher
    /// The peer connection publishing now (a new one after a republish).
    var peerConnection: PeerConnectionID
    var machine: PublisherConnectionMachine
    /// Our own paths to the router, for the far leg of our sender-stats messages.
    var paths = CandidatePairPathTracker()
    /// The video track's enabled state last set on the engine.
    var videoEnabled = true
}

extension CallSession {
    /// Publishes: captures, offers (simulcast layers from the settings), takes the router's
    /// answer. Our stream is then ``CallPublisher/stream``; other participants see it as
    /// `streamCreated`. When its media path is lost the publisher reconnects by itself
    /// (``CallPublisherEvent``).
    public func publish(_ publisher: CallPublisher) async throws(CallError) {
        guard let connection, let handle = trickle.participantHandle else { throw CallError(.notConnected, "publish: not connected") }
        guard publishing == nil else { throw CallError(.alreadyPublishing, "publish: a publisher is already publishing") }
        var pc: PeerConnectionID?
        do {
            let made = try await engine.makePeerConnection(configuration.peerConnection)
            pc = made
            trickle.expect(made)
            let settings = PublisherConnectionMachine.Settings(reconnectWindow: configuration.reconnectWindow)
            publishing = PublishingState(publisher: publisher, peerConnection: made, machine: PublisherConnectionMachine(settings: settings))
            _ = publishing?.machine.receive(.peerConnectionStarted(made, handle), now: timer.elapsed)
            let offer = try await preparePublishingOffer(publisher, on: made)
            let answer = try await signaling.publish(offer: offer)
            // Published: the stream exists before the connection can report anything about it.
            let media = publisher.settings.media
            publisher.setStream(CallStream(streamId: connection.connectionId, connection: connection, creationTime: wallClock(),
                                           hasAudio: media.audio, hasVideo: media.video, name: publisher.settings.name,
                                           videoType: publisher.settings.videoType))
            for candidate in trickle.ready(made, handle: handle) { try? await signaling.trickle(candidate, on: handle) }
            try await engine.setRemoteDescription(answer, on: made)
        } catch {
            if let pc {
                trickle.forget(pc)
                try? await engine.closePeerConnection(pc)
            }
            publishing = nil
            cancelPublisherTimers(publisher)
            publisher.setStream(nil)
            throw CallError.wrapping(error, "publish")
        }
        if let made = pc { await feedPublisher(.answerSent(made)) }
    }

    /// Cancels the publisher machine's timers (a new machine starts its generations afresh).
    func cancelPublisherTimers(_ publisher: CallPublisher) {
        for task in timers.removeValue(forKey: ObjectIdentifier(publisher)) ?? [] { task.cancel() }
    }

    /// Stops publishing (idempotent).
    public func unpublish(_ publisher: CallPublisher) async {
        guard let publishing, publishing.publisher === publisher else { return }
        self.publishing = nil
        cancelPublisherTimers(publisher)
        trickle.forget(publishing.peerConnection)
        try? await signaling.unpublish()
        try? await engine.closePeerConnection(publishing.peerConnection)
        publisher.setStream(nil)
    }

    /// Local media (and the sender-stats channel) on `pc`, then the offer, set.
    func preparePublishingOffer(_ publisher: CallPublisher, on pc: PeerConnectionID) async throws -> SessionDescription {
        try await engine.addLocalMedia(publisher.settings.media, to: pc)
        if publisher.settings.senderStatsTrack {
            try await engine.openDataChannel(label: CallPublisher.senderStatsChannel, on: pc)
        }
        let offer = try await engine.createOffer(on: pc, iceRestart: false)
        try await engine.setLocalDescription(offer, on: pc)
        return offer
    }
}
