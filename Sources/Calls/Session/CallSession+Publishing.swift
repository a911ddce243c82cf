import Observability
import Foundation

/// The publisher's peer connection.
struct PublishingState: Sendable {
    let publisher: CallPublisher
    let peerConnection: PeerConnectionID
    /// The video track's enabled state last set on the engine.
    var videoEnabled = true
}

extension CallSession {
    /// Publishes: captures, offers (simulcast layers from the settings), takes the router's
    /// answer. Our stream is then ``CallPublisher/stream``; other participants see it as
    /// `streamCreated`.
    public func publish(_ publisher: CallPublisher) async throws(CallError) {
        guard let connection, let handle = trickle.participantHandle else { throw CallError(.notConnected, "publish: not connected") }
        guard publishing == nil else { throw CallError(.alreadyPublishing, "publish: a publisher is already publishing") }
        var pc: PeerConnectionID?
        do {
            let made = try await engine.makePeerConnection(configuration.peerConnection)
            pc = made
            trickle.expect(made)
            publishing = PublishingState(publisher: publisher, peerConnection: made)
            try await engine.addLocalMedia(publisher.settings.media, to: made)
            if publisher.settings.senderStatsTrack {
                try await engine.openDataChannel(label: CallPublisher.senderStatsChannel, on: made)
            }
            let offer = try await engine.createOffer(on: made, iceRestart: false)
            let answer = try await signaling.publish(offer: offer)
            for candidate in trickle.ready(made, handle: handle) { try? await signaling.trickle(candidate, on: handle) }
            try await engine.setRemoteDescription(answer, on: made)
        } catch {
            if let pc {
                trickle.forget(pc)
                try? await engine.closePeerConnection(pc)
            }
            publishing = nil
            throw CallError.wrapping(error, "publish")
        }
        let media = publisher.settings.media
        publisher.setStream(CallStream(streamId: connection.connectionId, connection: connection, creationTime: wallClock(),
                                       hasAudio: media.audio, hasVideo: media.video, name: publisher.settings.name,
                                       videoType: publisher.settings.videoType))
    }

    /// Stops publishing (idempotent).
    public func unpublish(_ publisher: CallPublisher) async {
        guard let publishing, publishing.publisher === publisher else { return }
        self.publishing = nil
        trickle.forget(publishing.peerConnection)
        try? await signaling.unpublish()
        try? await engine.closePeerConnection(publishing.peerConnection)
        publisher.setStream(nil)
    }
}
