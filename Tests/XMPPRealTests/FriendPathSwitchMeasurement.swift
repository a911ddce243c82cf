import Calls
import CallsChromium
import Connectivity
import ConnectivityProbe
import Foundation
@testable import Friends
import RTCStats
import Testing
import XMPP

/// Where the time goes when all UDP into Bob is dropped and his friend connection moves to his
/// TCP relay allocation (docs/peer-to-peer.md, "Measured on real components"): the setup of
/// `RealFriendManagerTests` step 3 (Bob's peers' UDP dropped, `udpRelay`), then all UDP into Bob
/// dropped, while both connections' candidate pairs are read every 50 ms besides the managers'
/// own reads. Prints one line per change of a pair (state, checks sent and answered, requests
/// received, the age of its last packet, selected, nominated) and the managers' path events.
/// A measurement, not a CI step: `CALLSCOPE_FRIEND_PATH_TRACE=1` with CALLSCOPE_REAL_NETNS=1
/// turns it on; `CALLSCOPE_FRIEND_PATH_TRACE_SETTLE=10` waits that many seconds between
/// `udpRelay` and the block (default 0.5 s, as the real test).
@Suite(.serialized, .enabled(if: FriendsNamespace.enabled && ProsodyServers.installed
                                  && ProcessInfo.processInfo.environment["CALLSCOPE_FRIEND_PATH_TRACE"] != nil))
struct FriendPathSwitchMeasurement {
    static let alice = JID(local: "alice", domain: ProsodyServers.domain)
    static let bob = JID(local: "bob", domain: ProsodyServers.domain)

    @Test(.timeLimit(.minutes(4)))
    func moveToTheTCPRelay() async throws {
        let namespace = try FriendsNamespace.create()
        await namespace.withAliceAndBob(label: "friend-path-trace") { servers, aliceEngine, bobEngine in
            let alice = servers.client("alice"), bob = servers.client("bob")
            _ = try await connectAsFriends(alice, Self.alice, bob, Self.bob)
            try namespace.apply(.udpOnlyFromRelay(port: servers.turnPort))
            let bobConfiguration = FriendManagerConfiguration { FriendsNamespaceProber(prober: DiscoverabilityProber(configuration: $0)) }
            let aliceManager = FriendManager(client: alice, engine: aliceEngine)
            let bobManager = FriendManager(client: bob, engine: bobEngine, configuration: bobConfiguration)
            let aliceEvents = FriendEventLog.recording(aliceManager), bobEvents = FriendEventLog.recording(bobManager)
            let started = ContinuousClock.now
            try await aliceManager.start()
            try await bobManager.start()
            _ = await aliceEvents.first(after: started, within: .seconds(25), where: FriendEventLog.paths(Self.bob) { $0 == .udpRelay })
            _ = await bobEvents.first(after: started, within: .seconds(25), where: FriendEventLog.paths(Self.alice) { $0 == .udpRelay })
            let settle = Double(ProcessInfo.processInfo.environment["CALLSCOPE_FRIEND_PATH_TRACE_SETTLE"] ?? "") ?? 0.5
            let alicePC = try #require(await aliceManager.links[Self.bob]?.peerConnection)
            let bobPC = try #require(await bobManager.links[Self.alice]?.peerConnection)
            let tracer = PairTracer()
            let sampling = Task {
                while !Task.isCancelled {
                    if let report = try? await aliceEngine.stats(of: alicePC) { tracer.record("alice", report) }
                    if let report = try? await bobEngine.stats(of: bobPC) { tracer.record("bob", report) }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            try await Task.sleep(for: .seconds(settle))
            let block = ContinuousClock.now
            tracer.origin = block
            try namespace.apply(.noUDP)
            print("path-trace: all UDP into bob dropped")
            let bobTCP = await bobEvents.first(after: block, within: .seconds(15), where: FriendEventLog.paths(Self.alice) { $0 == .tcpRelay })
            try await Task.sleep(for: .seconds(3))
            sampling.cancel()
            _ = await sampling.value
            for line in tracer.lines { print("path-trace: \(line)") }
            print("path-trace: alice events \(aliceEvents.timeline(from: block))")
            print("path-trace: bob events \(bobEvents.timeline(from: block))")
            print("path-trace: bob tcpRelay \(bobTCP.map { String(format: "%.2f s", ($0 - block).seconds) } ?? "never") after the block (settle \(settle) s)")
            await aliceManager.stop()
            await bobManager.stop()
            await alice.disconnect()
            await bob.disconnect()
        }
        FriendsNamespace.remove()
    }
}

/// Candidate-pair lines, one per change, with the time from `origin`.
private final class PairTracer: @unchecked Sendable {
    // @unchecked: every stored property is only touched under `lock`.
    private let lock = NSLock()
    private var previous: [String: String] = [:]
    private var stored: [String] = []
    private var originInstant: ContinuousClock.Instant?

    var origin: ContinuousClock.Instant? {
        get { lock.withLock { originInstant } }
        set { lock.withLock { originInstant = newValue } }
    }

    var lines: [String] { lock.withLock { stored } }

    func record(_ side: String, _ report: StatsReport) {
        let now = ContinuousClock.now
        let selected = Set(report.entries(ofType: .transport).compactMap(\.selectedCandidatePairID))
        let reportTime = report.timestamp ?? 0
        lock.withLock {
            let offset = originInstant.map { String(format: "%+.2f", (now - $0).seconds) } ?? "pre"
            for pair in report.entries(ofType: .candidatePair) {
                let local = pair.string("localCandidateId").flatMap { report[$0] }
                let remote = pair.string("remoteCandidateId").flatMap { report[$0] }
                let kind = "\(local?.string("candidateType") ?? "?")/\(local?.string("protocol") ?? "?")/\(local?.string("relayProtocol") ?? "-")"
                    + "->\(remote?.string("candidateType") ?? "?")"
                let last = pair.number("lastPacketReceivedTimestamp").map { String(format: "%.0f", reportTime - $0) } ?? "-"
                let state = [pair.string("state") ?? "?",
                             "req \(Int(pair.number("requestsSent") ?? -1))/\(Int(pair.number("responsesReceived") ?? -1))",
                             "in \(Int(pair.number("requestsReceived") ?? -1))",
                             selected.contains(pair.id) ? "SELECTED" : "",
                             pair["nominated"]?.bool == true ? "nom" : ""].joined(separator: " ")
                let key = side + pair.id
                if previous[key] != state {
                    previous[key] = state
                    stored.append("\(offset) \(side) \(pair.id) \(kind) \(state) lastPacketAge \(last) ms")
                }
            }
        }
    }
}
