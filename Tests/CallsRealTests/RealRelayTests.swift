import Calls
import Connectivity
import Foundation
import Observability
import RTCStats
import Testing

extension Timed {
    /// The first element at or after `date` that satisfies `predicate`, waiting up to `timeout`.
    func wait(after date: Date, _ timeout: Duration, until predicate: (Element) -> Bool) async -> Date? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = all.first(where: { $0.0 >= date && predicate($0.1) })?.0 { return found }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// The coturn scenarios (docs/connection-state.md): alice publishes from the root namespace, bob
/// subscribes from `csrig-calls` with coturn's TURN URL, and bob's discoverability probes run
/// inside that namespace against the same coturn. Each test asserts the paths and level the SDK
/// reported, and when, against the iptables change that caused them.
@Suite(.serialized, .enabled(if: NetworkNamespace.enabled && CoturnProcess.installed,
                             "needs CALLSCOPE_REAL_NETNS=1, root, ip, iptables, coturn (run under the rig lock)"))
struct RealRelayTests {
    struct Rig {
        let namespace: NetworkNamespace
        let coturn: CoturnProcess
        let bob: CallSession
        let events: Timed<CallSessionEvent>
        let subscriber: CallSubscriber
        /// Alice's connection id.
        let alice: String
        /// When bob asked to subscribe.
        let subscribed: Date
    }

    /// Sets the call up (``TwoClientCall``: Bob in the namespace, a coturn of its own, his peer
    /// connections configured by `peerConnection`; Alice sending sender stats), subscribes Bob to
    /// Alice's stream and runs `body` from that moment on.
    func withRelayRig(peerConnection: @escaping @Sendable (CoturnProcess) -> PeerConnectionConfiguration, _ body: (Rig) async throws -> Void) async {
        var setup = TwoClientCall.Setup(namespaced: .bob, subscribe: false, bobRelay: peerConnection)
        setup.publisher.senderStatsTrack = true
        await TwoClientCall.run("relay scenario", setup) { call in
            let subscriber = CallSubscriber(stream: call.stream)
            let subscribed = Date()
            try await call.bob.subscribe(subscriber)
            try await body(Rig(namespace: try #require(call.namespace), coturn: try #require(call.coturn), bob: call.bob, events: call.bobEvents,
                               subscriber: subscriber, alice: call.stream.connection.connectionId, subscribed: subscribed))
        }
    }

    static func paths(_ alice: String, _ accept: @escaping (ConnectionPaths) -> Bool) -> (CallSessionEvent) -> Bool {
        { if case .participantPathsChanged(let p) = $0 { p.connectionId == alice && accept(p.paths) } else { false } }
    }

    static func state(_ wanted: SelfConnectionStatus) -> (CallSessionEvent) -> Bool {
        { if case .connectionStateChanged(let status) = $0 { status == wanted } else { false } }
    }

    static func seconds(_ interval: TimeInterval?) -> String { interval.map { String(format: "%.2f s", $0) } ?? "never" }

    /// Alice's path changes and bob's level changes, as offsets from `origin`.
    static func timeline(_ rig: Rig, from origin: Date) -> [String] {
        rig.events.all.compactMap { item -> String? in
            let offset = String(format: "%+.2f s", item.0.timeIntervalSince(origin))
            switch item.1 {
            case .participantPathsChanged(let p) where p.connectionId == rig.alice:
                return "\(offset) paths \(p.paths) (hers \(p.remotePaths?.description ?? "unsaid"))"
            case .connectionStateChanged(let status): return "\(offset) level \(status)"
            default: return nil
            }
        }
    }

    /// The subscriber's latest raw report: the selected pair's local candidate, read from the
    /// report itself (independently of the classifier), as `candidateType/relayProtocol`.
    static func selectedLocalCandidate(_ rig: Rig) throws -> String {
        let report = try StatsReport(json: Array(rig.subscriber.statsMonitor.rtcStatsReport().utf8))
        guard let local = report.selectedCandidatePair?.string("localCandidateId").flatMap({ report[$0] }) else { return "no selected pair" }
        return [local.string("candidateType") ?? "?", local.string("relayProtocol") ?? "-", local.string("protocol") ?? "?"].joined(separator: "/")
    }

    /// With `CALLSCOPE_CAPTURE_STATS=DIR`, keeps two consecutive raw reports of the subscriber
    /// (the path-classifier fixtures).
    static func capture(_ rig: Rig, as name: String) async {
        guard let directory = ProcessInfo.processInfo.environment["CALLSCOPE_CAPTURE_STATS"] else { return }
        for index in 1...2 {
            try? rig.subscriber.statsMonitor.rtcStatsReport().write(toFile: "\(directory)/\(name)-\(index).json", atomically: true, encoding: .utf8)
            try? await Task.sleep(for: .milliseconds(1100))
        }
    }

    /// `iceTransportPolicy: relay` with a UDP TURN URL: every path goes through coturn over UDP,
    /// reported `udpRelay` and nothing else; the level is `udp`.
    @Test(.timeLimit(.minutes(2)))
    func relayOverUDPIsReportedAsUDPRelay() async throws {
        await withRelayRig(peerConnection: { coturn in
            PeerConnectionConfiguration(iceServers: [coturn.url(transport: "udp")], username: CoturnProcess.user,
                                        credential: CoturnProcess.password, iceTransportPolicy: .relay)
        }) { rig in
            let relayed = await rig.events.wait(after: rig.subscribed, .seconds(20), until: Self.paths(rig.alice) { $0 == .udpRelay })
            let level = await rig.events.wait(.seconds(10), until: Self.state(.udp))         // measured from connect on
            progress("measured relay/udp: udpRelay \(Self.seconds(relayed.map { $0.timeIntervalSince(rig.subscribed) })) after subscribing; "
                     + "timeline \(Self.timeline(rig, from: rig.subscribed))")
            #expect(relayed != nil, "udpRelay reported: \(Self.timeline(rig, from: rig.subscribed))")
            #expect(level != nil, "level udp")
            try await Task.sleep(for: .seconds(3))                     // steady relayed media
            #expect(try Self.selectedLocalCandidate(rig) == "relay/udp/udp", "Chromium's selected pair is relayed over UDP")
            let other = rig.events.all.contains { Self.paths(rig.alice) { $0.contains(.udpDirect) || $0.contains(.tcpRelay) }($0.1) }
            #expect(!other, "only udpRelay with a relay-only policy: \(Self.timeline(rig, from: rig.subscribed))")
            let seen = await rig.bob.participants.first { $0.connectionId == rig.alice }
            #expect(seen?.paths == .udpRelay)
            // The far leg: alice publishes from the root namespace without TURN, and says so in
            // her sender stats.
            #expect(seen?.remotePaths == .udpDirect, "alice's own leg from her sender stats: \(String(describing: seen?.remotePaths))")
            await Self.capture(rig, as: "chromium-relay-udp")
        }
    }
    /// One call through the network changes, bob with a TCP TURN URL and the default policy:
    /// direct (`udpDirect`, `udp`); UDP dropped into bob's namespace (`tcpRelay`, `tcp`);
    /// everything dropped (paths empty, `offline`, alice still connected); everything let in
    /// again (`udp`, `udpDirect`). Each change is timed from the iptables call that caused it.
    @Test(.timeLimit(.minutes(3)))
    func pathsAndLevelFollowTheNetwork() async throws {
        await withRelayRig(peerConnection: { coturn in
            PeerConnectionConfiguration(iceServers: [coturn.url(transport: "tcp")], username: CoturnProcess.user,
                                        credential: CoturnProcess.password)
        }) { rig in
            let alice = rig.alice
            // Direct.
            let direct = await rig.events.wait(after: rig.subscribed, .seconds(20), until: Self.paths(alice) { $0 == .udpDirect })
            let udp = await rig.events.wait(.seconds(10), until: Self.state(.udp))
            #expect(direct != nil && udp != nil, "direct: udpDirect and udp: \(Self.timeline(rig, from: rig.subscribed))")
            try await Task.sleep(for: .seconds(3))                     // steady media first
            #expect(try !Self.selectedLocalCandidate(rig).hasPrefix("relay"), "Chromium's selected pair is direct")

            // UDP dropped.
            progress("dropping UDP into the namespace")
            try await rig.namespace.startDroppingUDP()
            let udpDropped = Date()
            let directGone = await rig.events.wait(after: udpDropped, .seconds(10), until: Self.paths(alice) { !$0.contains(.udpDirect) })
            let tcpRelay = await rig.events.wait(after: udpDropped, .seconds(30), until: Self.paths(alice) { $0 == .tcpRelay })
            let tcpLevel = await rig.events.wait(after: udpDropped, .seconds(20), until: Self.state(.tcp))
            let udpDroppedTimes = (directGone: directGone.map { $0.timeIntervalSince(udpDropped) }, tcpRelay: tcpRelay.map { $0.timeIntervalSince(udpDropped) },
                                   level: tcpLevel.map { $0.timeIntervalSince(udpDropped) })
            progress("measured UDP dropped: udpDirect gone \(Self.seconds(udpDroppedTimes.directGone)), tcpRelay \(Self.seconds(udpDroppedTimes.tcpRelay)), "
                     + "level tcp \(Self.seconds(udpDroppedTimes.level))")
            #expect(udpDroppedTimes.directGone.map { $0 <= 3 } == true, "udpDirect gone within 3 s: \(Self.timeline(rig, from: udpDropped))")
            #expect(udpDroppedTimes.tcpRelay != nil, "tcpRelay reported: \(Self.timeline(rig, from: udpDropped))")
            #expect(udpDroppedTimes.level.map { $0 <= 10 } == true, "level tcp within 10 s: \(Self.timeline(rig, from: udpDropped))")
            if tcpRelay != nil {
                try await Task.sleep(for: .seconds(2))
                #expect(try Self.selectedLocalCandidate(rig) == "relay/tcp/udp", "Chromium's selected pair is relayed over TCP")
                await Self.capture(rig, as: "chromium-relay-tcp")
            }

            // Everything dropped.
            progress("dropping everything into the namespace")
            try await rig.namespace.startBlackout()
            let blackout = Date()
            let empty = await rig.events.wait(after: blackout, .seconds(10), until: Self.paths(alice) { $0.isEmpty })
            let offline = await rig.events.wait(after: blackout, .seconds(20), until: Self.state(.offline))
            let blackoutTimes = (empty: empty.map { $0.timeIntervalSince(blackout) }, offline: offline.map { $0.timeIntervalSince(blackout) })
            progress("measured everything dropped: paths empty \(Self.seconds(blackoutTimes.empty)), offline \(Self.seconds(blackoutTimes.offline))")
            #expect(blackoutTimes.empty.map { $0 <= 3 } == true, "paths empty within 3 s: \(Self.timeline(rig, from: blackout))")
            #expect(blackoutTimes.offline.map { $0 <= 10 } == true, "offline within 10 s: \(Self.timeline(rig, from: blackout))")
            #expect(await rig.bob.connectionState == .offline)
            let stillThere = await rig.bob.participants.first { $0.connectionId == alice }
            #expect(stillThere != nil && stillThere?.paths == [], "alice still connected, with no path: \(String(describing: stillThere))")

            // Everything let in again.
            progress("letting everything in again")
            try await rig.namespace.endBlackout()
            try await rig.namespace.stopDroppingUDP()
            let back = Date()
            let udpAgain = await rig.events.wait(after: back, .seconds(15), until: Self.state(.udp))
            let directAgain = await rig.events.wait(after: back, .seconds(20), until: Self.paths(alice) { $0.contains(.udpDirect) })
            let backTimes = (level: udpAgain.map { $0.timeIntervalSince(back) }, direct: directAgain.map { $0.timeIntervalSince(back) })
            progress("measured back: level udp \(Self.seconds(backTimes.level)), udpDirect \(Self.seconds(backTimes.direct)); "
                     + "whole timeline \(Self.timeline(rig, from: rig.subscribed))")
            #expect(backTimes.level.map { $0 <= 5 } == true, "udp within 5 s of the network returning: \(Self.timeline(rig, from: back))")
            #expect(backTimes.direct.map { $0 <= 10 } == true, "udpDirect within 10 s of the network returning: \(Self.timeline(rig, from: back))")
            #expect(!rig.events.all.contains { if case .participantDidDisconnect = $0.1 { true } else { false } },
                    "empty paths do not disconnect alice")
            // Measured, not asserted (not a goal of the issue): when alice's sender stats, and so
            // her far leg, reach bob again after the outages.
            var farLegBack: Date?
            while farLegBack == nil, Date().timeIntervalSince(back) < 10 {
                if await rig.bob.participants.first(where: { $0.connectionId == alice })?.remotePaths != nil { farLegBack = Date() }
                try await Task.sleep(for: .milliseconds(100))
            }
            progress("measured far leg: alice's remotePaths known \(Self.seconds(farLegBack.map { $0.timeIntervalSince(back) })) after the network returned; "
                     + "bob's sender-stats counts \(rig.subscriber.statsMonitor.senderStatsCounts)")
        }
    }
}
