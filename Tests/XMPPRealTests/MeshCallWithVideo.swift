import Calls
import CallsJingle
import Foundation
import Testing
import XMPP
import XMPPClient

/// One media link of a mesh call of three: `subscriber` receives `publisher`'s video (indices
/// into ``MeshOfThree/names``).
struct MeshLink {
    let subscriber: Int, publisher: Int
    let video: VideoBytes
    var name: String { "\(MeshOfThree.names[publisher])->\(MeshOfThree.names[subscriber])" }
    func involves(_ index: Int) -> Bool { subscriber == index || publisher == index }
}

/// A relayed call of three friends with video on its six links: each publishes (320x180 at
/// 15 fps: six encoders share the machine) and subscribes to the two others, one at a time, so
/// that each engine's n-th answered connection is known.
struct MeshCallWithVideo {
    let signalings: [JingleMeshCallSignaling]
    let sessions: [CallSession]
    /// Each session's events from before it connected.
    let events: [TimedRecorder<CallSessionEvent>]
    let ids: [String]
    let publishers: [CallPublisher]
    let publisherEvents: [TimedRecorder<CallPublisherEvent>]
    let links: [MeshLink]
    let subscribers: [CallSubscriber]
    /// Each subscriber's events, named as its link.
    let lifecycles: [(name: String, events: TimedRecorder<CallSubscriberEvent>)]

    /// Befriends the three (``MeshOfThree/befriend(_:)``), joins them (``MeshOfThree/join(clients:engines:record:)``)
    /// on `engines`, publishes and subscribes, and waits for video on every link, read from
    /// `noted` (the same engines, or the ones under them).
    static func start(clients: [XMPPClient], engines: [any MediaEngine], noted: [NotedMediaEngine], since start: ContinuousClock.Instant) async throws -> MeshCallWithVideo {
        try await MeshOfThree.befriend(clients)
        let (signalings, sessions, events, ids) = try await MeshOfThree.join(clients: clients, engines: engines) { TimedRecorder($0.events) }
        let names = MeshOfThree.names
        let media = LocalMediaSettings(width: 320, height: 180, frameRate: 15)
        let publishers = names.map { CallPublisher(settings: CallPublisherSettings(name: $0, media: media)) }
        let publisherEvents = publishers.map { TimedRecorder($0.events) }
        for (session, publisher) in zip(sessions, publishers) { try await session.publish(publisher) }
        var links: [MeshLink] = []
        var subscribers: [CallSubscriber] = []
        var lifecycles: [(name: String, events: TimedRecorder<CallSubscriberEvent>)] = []
        for (index, session) in sessions.enumerated() {
            for (other, otherID) in ids.enumerated() where other != index {
                let created = await events[index].first(after: start, within: .seconds(20)) { if case .streamCreated(let s) = $0 { s.streamId == otherID } else { false } }
                guard case .streamCreated(let stream)? = created?.event else {
                    throw MeshNotReady("\(names[index]) never got \(names[other])'s stream: \(events[index].timeline(from: start))")
                }
                let subscriber = CallSubscriber(stream: stream)
                let answered = noted[index].answeringPeerConnections.count
                lifecycles.append(("\(names[other])->\(names[index])", TimedRecorder(subscriber.events)))
                subscribers.append(subscriber)
                try await session.subscribe(subscriber)
                let deadline = ContinuousClock.now + .seconds(10)
                while noted[index].answeringPeerConnections.count == answered, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
                guard noted[index].answeringPeerConnections.count == answered + 1 else {
                    throw MeshNotReady("\(names[index]) never answered \(names[other])'s offer")
                }
                links.append(MeshLink(subscriber: index, publisher: other, video: VideoBytes(noted[index], answering: answered)))
            }
        }
        for link in links where await link.video.growing(after: start, within: .seconds(20)) == nil {
            throw MeshNotReady("no video on \(link.name): \(link.video.samples.suffix(4))")
        }
        return MeshCallWithVideo(signalings: signalings, sessions: sessions, events: events, ids: ids, publishers: publishers,
                                 publisherEvents: publisherEvents, links: links, subscribers: subscribers, lifecycles: lifecycles)
    }

    /// The sessions' `participantDidDisconnect` and `streamDestroyed` after `start` (plus
    /// `streamCreated` when `orCreated`), by name; empty when there were none.
    func lostSomething(after start: ContinuousClock.Instant, orCreated: Bool = false) -> [String] {
        events.enumerated().compactMap { index, recorder in
            let lost = recorder.entries.contains { entry in
                guard entry.at > start else { return false }
                switch entry.event {
                case .participantDidDisconnect, .streamDestroyed: return true
                case .streamCreated: return orCreated
                default: return false
                }
            }
            return lost ? "\(MeshOfThree.names[index]): \(recorder.timeline(from: start))" : nil
        }
    }

    /// The longest time after `start` between two samples of `video` that counted more bytes
    /// (a stall of the link's video; samples come every 200 ms).
    static func longestStall(_ video: VideoBytes, after start: ContinuousClock.Instant) -> Duration {
        let all = video.samples.filter { $0.at >= start }
        var longest: Duration = .zero
        var lastGrowth = all.first?.at
        for (previous, sample) in zip(all, all.dropFirst()) where sample.bytes > previous.bytes {
            if let last = lastGrowth { longest = max(longest, sample.at - last) }
            lastGrowth = sample.at
        }
        if let last = lastGrowth, let end = all.last?.at { longest = max(longest, end - last) }
        return longest
    }
}

/// The mesh call of three did not reach the state a test needs.
struct MeshNotReady: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
