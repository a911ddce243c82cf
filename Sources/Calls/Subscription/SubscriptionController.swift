import Foundation
import Observability

/// One subscription in a session: a router handle and a peer connection of its own for one
/// stream (so each subscriber recovers on its own), its lifecycle (``MediaConnectionController``),
/// its layer policy, and the order of its `configure` requests. The session routes engine and
/// router events to it by peer connection and handle, and its stats samples.
final class SubscriptionController {
    let subscriber: CallSubscriber
    let connection: MediaConnectionController
    /// The layer policy and what feeds it.
    var adaptation = SubscriberAdaptation()
    /// The last `configure` sent for the layer policy (the next one waits for it).
    var configuring: Task<Void, Never>?
    /// Tells the session of the subscriber monitor's connection-quality changes.
    private var qualityWatcher: Task<Void, Never>?
    /// The audio media section and whether the router was last asked to forward it.
    var audio = AudioSection()
    /// The engine's frames of our peer connection, to the subscriber's video output.
    let video: VideoSinkBinding

    /// The subscription's audio media section.
    struct AudioSection {
        var mid: String?
        /// What the router forwards: a new handle forwards the audio.
        var forwarded = true
    }

    init(subscriber: CallSubscriber, settings: MediaConnectionMachine.Settings) {
        self.subscriber = subscriber
        connection = MediaConnectionController(settings: settings)
        video = VideoSinkBinding(output: subscriber.videoOutput)
        connection.role = self
    }

    var stream: CallStream { subscriber.stream }
    var isOpen: Bool { !connection.isClosed }

    // MARK: - Opening and renegotiating

    /// Opens a handle and peer connection and answers the router's offer (`offer`, when the
    /// handle is already open: a relayed publisher's replacement).
    func open(with given: SubscriptionOffer? = nil, in session: isolated CallSession) async throws {
        let offer: SubscriptionOffer
        if let given { offer = given } else { offer = try await session.signaling.subscribe(to: FeedID(stream.streamId)) }
        guard isOpen else {          // unsubscribed while we waited
            await session.signaling.close(offer.handle)
            return
        }
        let pc = try await session.engine.makePeerConnection(session.configuration.peerConnection)
        session.trickle.expect(pc)
        let engine = session.engine
        subscriber.statsMonitor.setFreshReportSource { (try? await engine.stats(of: pc)).map { (pc, $0) } }
        if session.signaling is any RelayedSignaling { subscriber.statsMonitor.shareRelayedLinks(on: session.relayedLinks) }
        adaptation.restart(videoMid: SubscriberAdaptation.videoMid(in: offer.offer))
        audio = AudioSection(mid: SubscriberAdaptation.mid(of: "audio", in: offer.offer))
        await connection.feed(.peerConnectionStarted(pc, offer.handle), in: session)
        // Before the answer, so that the first decoded frame already has a sink.
        await updateVideoSink(in: session)
        try await answer(offer.offer, pc: pc, handle: offer.handle, in: session)
    }

    /// Sets the router's offer, answers it (with our own data channel when the offer has one:
    /// Janus relays data only to a subscriber that opened one) and sends the held candidates.
    private func answer(_ offer: SessionDescription, pc: PeerConnectionID, handle: RouterHandleID, in session: isolated CallSession) async throws {
        guard isCurrent(pc) else { return }
        if let mid = SubscriberAdaptation.videoMid(in: offer) { adaptation.videoMid = mid }
        try await session.engine.setRemoteDescription(offer, on: pc)
        if offer.sdp.contains("m=application"), !session.trickle.hasSeen(pc) {
            try await session.engine.openDataChannel(label: CallPublisher.senderStatsChannel + "-sub", on: pc)
        }
        let answer = try await session.engine.createAnswer(on: pc)
        guard isCurrent(pc) else { return }
        try await session.signaling.start(handle, answer: answer)
        for candidate in session.trickle.ready(pc, handle: handle) { try? await session.signaling.trickle(candidate, on: handle) }
        await connection.feed(.answerSent(pc), in: session)
    }

    /// The router offered again on our handle (an ICE restart it was asked for).
    func renegotiate(_ offer: SessionDescription, in session: isolated CallSession) async {
        guard let pc = connection.peerConnection, let handle = connection.handle else { return }
        await connection.feed(.offerReceived(handle), in: session)
        do {
            try await answer(offer, pc: pc, handle: handle, in: session)
        } catch {
            subscriber.deliver([.didFail(CallError.wrapping(error, "renegotiation"))])
        }
    }

    private func isCurrent(_ pc: PeerConnectionID) -> Bool { isOpen && connection.peerConnection == pc }

    // MARK: - Video frames

    /// The engine's sink on our peer connection exactly while the subscriber's video output is
    /// wanted; the output's renderer and streams coming and going are watched from the first
    /// call on.
    func updateVideoSink(in session: isolated CallSession) async {
        guard isOpen else { return }
        if !video.isWatching {
            let subscriber = subscriber
            video.watch(in: session) { session in
                await session.subscriptions.first { $0.subscriber === subscriber }?.updateVideoSink(in: session)
            }
        }
        do {
            try await video.update(peerConnection: connection.peerConnection, in: session)
        } catch {
            subscriber.deliver([.didFail(CallError.wrapping(error, "video frames"))])
        }
    }

    // MARK: - Inputs

    /// An engine event of our peer connection.
    func receive(_ event: MediaEngineEvent, in session: isolated CallSession) async {
        switch event {
        case .iceConnectionState(let pc, let state):
            await connection.feed(.iceState(pc, state), in: session)
        case .dataChannelMessage(let pc, let label, let text):
            receiveSenderStats(text, label: label, on: pc, in: session)
        case .videoFrameRejected(_, _, let reason):
            subscriber.videoOutput.rejectFrame(reason: reason)
        default:
            break
        }
    }

    /// Janus relays the publisher's channel to a subscriber under the publisher's feed id as
    /// label (measured: "callscope" became the feed id), not under ours.
    private func receiveSenderStats(_ text: String, label: String, on pc: PeerConnectionID, in session: isolated CallSession) {
        guard label.hasPrefix(CallPublisher.senderStatsChannel) || label == stream.connection.connectionId else { return }
        let time = session.wallClock().timeIntervalSince1970 * 1000
        session.statsRecorder?(.senderStatsReceived(stream: stream, peerConnection: pc.rawValue, message: text, time: time))
        let monitor = subscriber.statsMonitor
        let accepted = monitor.senderStatsCounts.accepted
        monitor.receiveSenderStats(Array(text.utf8), at: time)
        // Only a message the monitor took says something new (a dropped one must not refresh
        // the last one's paths).
        if monitor.senderStatsCounts.accepted > accepted, let far = monitor.latestSenderStats?.paths {
            session.deliver(session.delivery.participants.remotePathsReported(ConnectionPaths(far), participant: stream.connection.connectionId,
                                                                        at: session.timer.elapsed))
        }
    }

    /// A router event on our handle.
    func receive(_ event: SignalingEvent, in session: isolated CallSession) async {
        switch event {
        case .offer(_, let offer):
            await renegotiate(offer, in: session)
        case .mediaUp(let handle):
            await connection.feed(.routerMediaUp(handle), in: session)
        case .hangup(let handle, _):
            await connection.feed(.routerHangup(handle), in: session)
        case .forwardedLayerChanged(_, _, let substream, let temporal):
            for case .event(let event) in adaptation.forwardedLayerChanged(substream: substream, temporal: temporal) {
                subscriber.deliver([event])
            }
        default:
            break
        }
    }

    /// The app (or the session) ends it.
    func unsubscribe(in session: isolated CallSession) async {
        await connection.feed(.unsubscribe, in: session)
    }

    // MARK: - Stats

    /// One stats sample: the monitor reads the report once; its paths, decoded size, layer
    /// policy and lifecycle follow.
    func sample(in session: isolated CallSession) async {
        guard let pc = connection.peerConnection, let report = try? await session.engine.stats(of: pc), isCurrent(pc) else { return }
        watchConnectionQuality(in: session)
        session.statsRecorder?(.subscriberSample(stream: stream, peerConnection: pc.rawValue, report: report))
        let reading = subscriber.statsMonitor.read(report, peerConnection: pc)
        session.pathsSampled(reading.connection.paths, of: self)
        if let size = reading.decodedVideo { session.decodedVideo(CallVideoDimensions(width: size.width, height: size.height), of: stream) }
        let reportTime = reading.reportTime ?? session.wallClock().timeIntervalSince1970 * 1000
        applySubscribeToAudio(in: session)
        await adapt(reading, reportTime: reportTime, in: session)
        let progress = reading.connection.progress
        await connection.feed(.statsSample(pc, bytesReceived: progress.bytesReceived, responsesReceived: progress.responsesReceived), in: session)
    }

    /// Between stats samples: the selected pair's progress, for the lifecycle only.
    func checkHealth(in session: isolated CallSession) async {
        guard let pc = connection.peerConnection, let report = try? await session.engine.stats(of: pc), isCurrent(pc) else { return }
        let reading = subscriber.statsMonitor.readConnection(report, peerConnection: pc)
        session.pathsSampled(reading.paths, of: self)
        await connection.feed(.statsSample(pc, bytesReceived: reading.progress.bytesReceived, responsesReceived: reading.progress.responsesReceived),
                              in: session)
    }

    /// Listens, once, to the monitor's connection-quality changes (on change only, at most
    /// once per stats sample), before its first report.
    private func watchConnectionQuality(in session: isolated CallSession) {
        guard qualityWatcher == nil else { return }
        let participant = stream.connection.connectionId
        let source = ObjectIdentifier(self)
        let callbacks = subscriber.statsMonitor.events
        qualityWatcher = Task { [weak session] in
            for await callback in callbacks {
                guard case .participantConnectionQualityChanged(let quality) = callback.event else { continue }
                await session?.connectionQualityChanged(quality, source: source, participant: participant)
            }
        }
    }

    // MARK: - Closing

    /// Closes the peer connection and handle and stops everything of its own; then the
    /// session forgets it. Idempotent.
    func close(in session: isolated CallSession) async {
        guard isOpen else { return }
        await end(closing: connection.peerConnection, handle: connection.handle, in: session)
    }

    /// Takes no more input, closes `pc` and `handle`, and is forgotten.
    private func end(closing pc: PeerConnectionID?, handle: RouterHandleID?, in session: isolated CallSession) async {
        connection.close()
        video.stop()
        subscriber.statsMonitor.setFreshReportSource(nil)
        await closeMedia(pc, handle: handle, in: session)
        qualityWatcher?.cancel()
        qualityWatcher = nil
        session.subscriptionEnded(self)
    }

    private func closeMedia(_ pc: PeerConnectionID?, handle: RouterHandleID?, in session: isolated CallSession) async {
        if let pc {
            session.trickle.forget(pc)
            try? await session.engine.closePeerConnection(pc)
        }
        if let handle { await session.signaling.close(handle) }
    }
}

extension SubscriptionController: MediaConnectionRole {
    func emit(_ kind: CallSubscriberEvent.Kind, in session: isolated CallSession) {
        subscriber.deliver([CallSubscriberEvent(kind, stream: stream)])
    }

    func restartIce(on handle: RouterHandleID, in session: isolated CallSession) async {
        do {
            try await session.signaling.restartIce(handle)
        } catch {
            subscriber.deliver([.didFail(CallError.wrapping(error, "ICE restart"))])
        }
    }

    /// A new peer connection on a new handle. With no router (``SubscriptionReplacing``) the
    /// publisher makes the new connection: it is asked for one (its publication stays), unless
    /// its replacement came first (a hangup of our handle).
    func replace(_ peerConnection: PeerConnectionID, handle: RouterHandleID, in session: isolated CallSession) async {
        do {
            if let relayed = session.signaling as? any SubscriptionReplacing {
                await closeMedia(peerConnection, handle: nil, in: session)
                let offer = try await relayed.replaceSubscription(handle)
                try await open(with: offer, in: session)
            } else {
                await closeMedia(peerConnection, handle: handle, in: session)
                try await open(in: session)
            }
        } catch {
            subscriber.deliver([.didFail(CallError.wrapping(error, "new peer connection"))])
        }
    }

    func destroyStream(in session: isolated CallSession) {
        session.streamLost(stream)
    }

    func tearDown(_ peerConnection: PeerConnectionID?, handle: RouterHandleID?, in session: isolated CallSession) async {
        await end(closing: peerConnection, handle: handle, in: session)
    }
}
