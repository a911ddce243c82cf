import AVFoundation
import Calls
import CallsJanus
import CallsWebRTC
import Foundation
import Observability
import Observation

/// The call: a `CallSession` over Janus and Apple's WebRTC, one subscriber per remote stream,
/// and the camera published.
@MainActor
@Observable
final class CallModel {
    private(set) var tiles: [SubscriberTile] = []
    private(set) var isJoined = false
    private(set) var lastError: String?
    private var session: CallSession?
    private var eventsTask: Task<Void, Never>?

    func join(url: URL, room: UInt64) async {
        do {
            // Picture in Picture and audio in the background need an active call audio session.
            try AVAudioSession.sharedInstance().setCategory(.playAndRecord, mode: .videoChat, options: [.defaultToSpeaker, .allowBluetooth])
            try AVAudioSession.sharedInstance().setActive(true)
            let session = CallSession(signaling: JanusSignaling(url: url, room: room), engine: WebRTCMediaEngine(),
                                      clock: ContinuousClock(), wallClock: Date.init)
            self.session = session
            eventsTask = Task { [weak self] in
                for await event in session.events { await self?.handle(event, in: session) }
            }
            try await session.connect(display: "ios")
            try await session.publish(CallPublisher())   // the front camera and the microphone
            isJoined = true
        } catch {
            lastError = "\(error)"
        }
    }

    func leave() async {
        await session?.disconnect()
        eventsTask?.cancel()
        session = nil
        tiles.removeAll()
        isJoined = false
    }

    private func handle(_ event: CallSessionEvent, in session: CallSession) async {
        switch event {
        case .streamCreated(let stream):
            let tile = SubscriberTile(subscriber: CallSubscriber(stream: stream))
            tiles.append(tile)
            do { try await session.subscribe(tile.subscriber) } catch { lastError = "\(error)" }
        case .streamDestroyed(let stream, _):
            tiles.removeAll { $0.subscriber.stream.id == stream.id }
        case .didFail(let error):
            lastError = "\(error)"
        default:
            break
        }
    }
}

/// One subscribed stream and the latest of its statistics, for the overlay.
@MainActor
@Observable
final class SubscriberTile: Identifiable {
    let subscriber: CallSubscriber
    private(set) var condition: NetworkCondition = .unknown
    private(set) var degradationSource: NetworkDegradationSource = .unknown
    private(set) var bitrate: Double = 0
    private var statsTask: Task<Void, Never>?

    nonisolated var id: String { subscriber.stream.id }

    init(subscriber: CallSubscriber) {
        self.subscriber = subscriber
        let events = subscriber.statsMonitor.events
        statsTask = Task { [weak self] in
            for await callback in events {
                guard case .subscriberVideoNetworkStatsUpdated(let stats) = callback.event else { continue }
                self?.update(stats)
            }
        }
    }

    private func update(_ stats: SubscriberVideoNetworkStats) {
        bitrate = stats.bitrate
        degradationSource = stats.networkDegradationSource
        condition = stats.transport?.networkCondition ?? .unknown
    }
}
