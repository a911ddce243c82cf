import Calls
import CallsChromium
@testable import CallsJingle
import Foundation
import Observability
import Testing
import XMPP
import XMPPClient

/// A relayed call of three friends (a mesh) on real components: Prosody and coturn started by
/// the test, three `CallSession`s over `JingleMeshCallSignaling`, each with its own headless
/// Chromium; Carol's Chromium runs in the `csrig-friends` namespace (``FriendsNamespace``), whose
/// downlink is then capped with `tc tbf` at 150 kbit/s on the root end of its veth.
///
/// What is asserted, and why:
/// - each publisher's arrays hold two elements, named by the two others' devices (`connectionId`)
///   with distinct `subscriberId`s (seeds 000/001: one element per subscriber);
/// - after the cap, Alice's and Bob's elements for Carol become `warning` or `critical`
///   (`ConditionThresholds` defaults): two links sending ~0.2 Mbit/s of video each (logged
///   before the cap) plus audio offer ~0.45 Mbit/s to a 150 kbit/s pipe, so until the senders
///   back off two thirds of their packets cannot pass (loss ≥ 0.15: `critical`), and once they
///   have, each link's estimate is at most the 150 kbit/s that pass, under half of what the
///   link asked for before (headroom estimate ÷ demand < 0.5: `warning`, < 0.25: `critical`);
///   their elements for each other, over loopback, are never `warning`/`critical` from the cap
///   on (the cap waits until both are healthy: on a loaded machine three Chromiums' congestion
///   control can still be ramping up 11 s into the call, an estimate of 341-458 kbit/s read as
///   `critical` before any cap, seen once in CI);
/// - Carol's subscribers see their own downlink degraded and nothing of the publishers' side,
///   so their source is `local`.
///
/// Gated by CALLSCOPE_REAL=1 and CALLSCOPE_REAL_NETNS=1 (Scripts/test.sh, its own step, under
/// the rig lock).
@Suite(.serialized, .enabled(if: FriendsNamespace.enabled && ProsodyServers.installed))
struct RealMeshCallTests {
    static let names = MeshOfThree.names
    /// Carol's downlink cap.
    static let cap = "150kbit"

    func log(_ line: String) { print("mesh-real: \(line)") }

    @Test(.timeLimit(.minutes(2)))
    func eachPublisherHasAnElementPerSubscriberAndACapDegradesOnlyCarols() async throws {
        let namespace = try FriendsNamespace.create()
        await namespace.withThreeFriends(label: "mesh-real", beforeStop: {
            _ = try? FriendsNamespace.run(["/usr/sbin/tc", "qdisc", "del", "dev", FriendsNamespace.rootInterface, "root"])
        }) { clients, engines in
            try await scenario(clients: clients, engines: engines)
        }
        FriendsNamespace.remove()
    }

    private func scenario(clients: [XMPPClient], engines: [ChromiumMediaEngine]) async throws {
        let start = ContinuousClock.now
        func elapsed() -> String { "\((ContinuousClock.now - start).formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))" }
        try await MeshOfThree.befriend(clients)
        log("friends at \(elapsed())")

        let (signalings, sessions, events, ids) = try await MeshOfThree.join(clients: clients, engines: engines) { RelayedCallRecorder($0.events) }
        for index in sessions.indices {
            let others = Set(ids.filter { $0 != ids[index] })
            let both = await events[index].wait(.seconds(10)) { _ in
                let connected = Set(events[index].all.compactMap { if case .participantDidConnect(let p) = $0 { p.connectionId } else { nil } })
                return others.isSubset(of: connected)
            }
            try #require(both != nil, "\(Self.names[index]) sees both others in the call: \(events[index].all)")
        }
        log("all joined at \(elapsed()): \(ids)")

        // Everyone publishes (small video: six encoders share the machine) and subscribes to the
        // two other streams.
        let media = LocalMediaSettings(width: 320, height: 180, frameRate: 15)
        let publishers = Self.names.map { CallPublisher(settings: CallPublisherSettings(name: $0, media: media)) }
        let publisherStats = publishers.map { RelayedCallRecorder($0.statsMonitor.events) }
        for (session, publisher) in zip(sessions, publishers) { try await session.publish(publisher) }
        var subscriberStats: [[RelayedCallRecorder<StatsCallback>]] = [[], [], []]
        var subscribers: [CallSubscriber] = []
        for (index, session) in sessions.enumerated() {
            for (other, otherID) in ids.enumerated() where other != index {
                let created = await events[index].wait(.seconds(15)) { if case .streamCreated(let s) = $0 { s.streamId == otherID } else { false } }
                guard case .streamCreated(let stream) = try #require(created, "\(Self.names[index]) gets \(Self.names[other])'s stream") else { return }
                let subscriber = CallSubscriber(stream: stream)
                subscriberStats[index].append(RelayedCallRecorder(subscriber.statsMonitor.events))
                subscribers.append(subscriber)
                try await session.subscribe(subscriber)
            }
        }
        log("subscribed at \(elapsed())")

        func lastLinks(_ index: Int) -> [PublisherMediaLinkStats] {
            publisherStats[index].all.compactMap { if case .publisherMediaLinkStatsUpdated(let links) = $0.event { links } else { nil } }.last ?? []
        }
        func condition(_ publisher: Int, towards subscriber: Int) -> NetworkCondition? {
            lastLinks(publisher).first { $0.connectionId == ids[subscriber] }?.transport.networkCondition
        }
        func videoBitrate(_ publisher: Int, towards connection: String) -> Int {
            let videos: [PublisherVideoNetworkStats] = publisherStats[publisher].all.compactMap { callback -> [PublisherVideoNetworkStats]? in
                if case .publisherVideoNetworkStatsUpdated(let v) = callback.event { v } else { nil }
            }.last ?? []
            return Int(videos.first { $0.connectionId == connection }?.videoLayers.reduce(0) { $0 + $1.bitrate } ?? 0)
        }
        func describe(_ publisher: Int) -> String {
            lastLinks(publisher).map {
                "\($0.connectionId)/\($0.subscriberId) \($0.transport.networkCondition) (\($0.transport.networkConditionReason)) est \(Int($0.transport.connectionEstimatedBandwidth)) video \(videoBitrate(publisher, towards: $0.connectionId))"
            }.joined(separator: ", ")
        }

        // 1. Two elements per publisher, named by the two others, distinct subscriber ids; all
        // scored (known) before the cap.
        for index in 0..<3 {
            let others = Set(ids.filter { $0 != ids[index] })
            let named = await publisherStats[index].wait(.seconds(20)) { _ in
                let links = lastLinks(index)
                return Set(links.map(\.connectionId)) == others && links.allSatisfy { $0.transport.networkCondition != .unknown }
            }
            log("\(Self.names[index])'s arrays at \(elapsed()): \(describe(index))")
            #expect(named != nil, "\(Self.names[index])'s media links name \(others): \(describe(index))")
            let links = lastLinks(index)
            #expect(links.count == 2 && Set(links.map(\.subscriberId)).count == 2 && !links.contains { $0.subscriberId.isEmpty || others.contains($0.subscriberId) },
                    "distinct subscriber ids (the Jingle sids): \(links.map(\.subscriberId))")
            let videos: [PublisherVideoNetworkStats] = publisherStats[index].all.compactMap { callback -> [PublisherVideoNetworkStats]? in
                if case .publisherVideoNetworkStatsUpdated(let v) = callback.event { v } else { nil }
            }.last ?? []
            #expect(Set(videos.map(\.connectionId)) == others, "\(Self.names[index])'s video array: \(videos.map(\.connectionId))")
        }

        // The baseline: Alice's and Bob's elements for each other healthy before the cap.
        let healthy = await publisherStats[0].wait(.seconds(30)) { _ in
            condition(0, towards: 1).map { !$0.isDegraded } == true && condition(1, towards: 0).map { !$0.isDegraded } == true
        }
        log("alice's and bob's elements for each other healthy at \(elapsed()): alice \(describe(0)); bob \(describe(1))")
        try #require(healthy != nil, "alice's and bob's elements for each other become healthy before the cap: alice \(describe(0)); bob \(describe(1))")

        // 2. Carol's downlink capped.
        let atCap = publisherStats.map { $0.all.count }
        try FriendsNamespace.run(["/usr/sbin/tc", "qdisc", "add", "dev", FriendsNamespace.rootInterface, "root", "tbf", "rate", Self.cap, "burst", "16kbit", "latency", "100ms"])
        let capped = ContinuousClock.now
        log("capped carol's downlink at \(elapsed())")
        let degraded = await publisherStats[0].wait(.seconds(20)) { _ in
            condition(0, towards: 2)?.isDegraded == true && condition(1, towards: 2)?.isDegraded == true
        }
        log("after the cap (\(ContinuousClock.now - capped)): alice \(describe(0)); bob \(describe(1))")
        #expect(degraded != nil, "alice's and bob's elements for carol degrade: alice \(describe(0)); bob \(describe(1))")
        let carolLocal = await subscriberStats[2][0].wait(.seconds(10)) { _ in
            subscriberStats[2].allSatisfy { recorder in
                recorder.all.compactMap { callback -> NetworkDegradationSource? in
                    if case .subscriberMediaLinkStatsUpdated(let link) = callback.event { link.networkDegradationSource } else { nil }
                }.last == .local
            }
        }
        let sources = subscriberStats[2].map { recorder in
            recorder.all.compactMap { callback -> String? in
                if case .subscriberMediaLinkStatsUpdated(let link) = callback.event { "\(link.transport.networkCondition)/\(link.networkDegradationSource)" } else { nil }
            }.last ?? "none"
        }
        log("carol's subscribers: \(sources)")
        #expect(carolLocal != nil, "carol's subscribers report source local: \(sources)")
        // Their elements for each other: never degraded in any array from the cap on.
        for (publisher, subscriber) in [(0, 1), (1, 0)] {
            let conditions = publisherStats[publisher].all.dropFirst(atCap[publisher]).compactMap { callback -> NetworkCondition? in
                guard case .publisherMediaLinkStatsUpdated(let links) = callback.event else { return nil }
                return links.first { $0.connectionId == ids[subscriber] }?.transport.networkCondition
            }
            #expect(!conditions.isEmpty && !conditions.contains { $0.isDegraded },
                    "\(Self.names[publisher])'s element for \(Self.names[subscriber]) stays good: \(Set(conditions))")
        }

        // Logged, not asserted: whether Carol's layer policy fell back to audio on Alice's and
        // Bob's streams (their content-modify), within 8 s of the cap.
        func carolWantsVideo(from publisher: Int) async -> Bool? {
            guard let sid = lastLinks(publisher).first(where: { $0.connectionId == ids[2] })?.subscriberId else { return nil }
            return await signalings[publisher].subscriberWantsVideo(on: JingleMeshCallSignaling.publicationHandle(sid))
        }
        while ContinuousClock.now - capped < .seconds(8) {
            if await carolWantsVideo(from: 0) == false, await carolWantsVideo(from: 1) == false { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        log("carol wants video from alice: \(String(describing: await carolWantsVideo(from: 0))), from bob: \(String(describing: await carolWantsVideo(from: 1))) at \(ContinuousClock.now - capped) after the cap")

        for session in sessions.reversed() { await session.disconnect() }
        _ = subscribers
        log("done at \(elapsed())")
    }
}
