import Calls
import CallsChromium
import Foundation
import Observability
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether Janus' `GET /info` answers within 2 s (the block is in place when it does not).
func janusAnswers(_ url: URL) async -> Bool {
    var request = URLRequest(url: url.appendingPathComponent("info"))
    request.timeoutInterval = 2
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 2
    let session = URLSession(configuration: configuration)
    defer { session.invalidateAndCancel() }
    let answer = Task { (try? await session.data(for: request)) != nil }
    let deadline = Task { try? await Task.sleep(for: .seconds(3)); answer.cancel() }
    defer { deadline.cancel() }
    return await answer.value
}

extension NetworkNamespace {
    static let signalingComment = "csrig-calls-signaling"

    /// The iptables arguments of the signaling block: every TCP segment toward Janus' HTTP
    /// `port` on loopback dropped. Our signaling runs in the test process (root namespace) and
    /// Janus' HTTP listens on 127.0.0.1, so the block is in the root namespace's OUTPUT on `lo`,
    /// limited to this run's free port (nobody else's traffic); media (UDP) is untouched.
    static func signalingRule(_ action: String, port: Int) -> [String] {
        ["/usr/sbin/iptables", "-w", "5", action, "OUTPUT", "-o", "lo", "-p", "tcp", "--dport", String(port),
         "-m", "comment", "--comment", signalingComment, "-j", "DROP"]
    }

    func startSignalingOutage(port: Int) async throws { try await Self.run(Self.signalingRule("-I", port: port)) }
    func endSignalingOutage(port: Int) async throws { try await Self.run(Self.signalingRule("-D", port: port)) }
}

extension RealReconnectionTests {
    /// HTTP to Janus blocked for 10 s while media keeps flowing (the signaling-only
    /// outage of docs/reconnection.md): no `didDisconnect`, no `streamDestroyed`, no session
    /// failure; Bob's video bytes
    /// keep rising during the block; afterwards the session goes on: Bob unsubscribes and
    /// subscribes again over the same Janus session, and media flows to the new subscriber.
    @Test(.timeLimit(.minutes(3)))
    func signalingOnlyOutageIsNotAMediaDisconnect() async throws {
        try await withBlackoutRig { namespace, url, bob, bobEvents, subscriber, lifecycle in
            let port = try #require(url.port)
            let stats = Timed(subscriber.statsMonitor.events)
            func videoBytes(from: Date, to: Date) -> [UInt64] {
                stats.all.filter { $0.0 >= from && $0.0 <= to }.compactMap {
                    if case .subscriberVideoNetworkStatsUpdated(let video) = $0.1.event { video.videoBytesReceived } else { nil }
                }
            }
            progress("signaling outage on for 10 s (tcp to 127.0.0.1:\(port) dropped)")
            try await namespace.startSignalingOutage(port: port)
            let start = Date()
            let blocked = await !janusAnswers(url)
            do {
                try await Task.sleep(for: .milliseconds(Int((10 - Date().timeIntervalSince(start)) * 1000)))
            } catch {}
            try await namespace.endSignalingOutage(port: port)
            let end = Date()
            progress("signaling outage off")
            #expect(blocked, "HTTP to Janus was blocked during the outage")
            #expect(await janusAnswers(url), "HTTP to Janus answers again after it")
            let during = videoBytes(from: start.addingTimeInterval(1), to: end)
            progress("measured signaling outage: video bytes during the block \(during.first.map(String.init) ?? "-") → \(during.last.map(String.init) ?? "-") over \(during.count) callbacks")
            #expect(during.count >= 7, "stats callbacks kept coming during the block: \(during.count)")
            #expect((during.last ?? 0) > (during.first ?? 0), "media kept flowing during the block")
            try await Task.sleep(for: .seconds(8))               // what follows the unblocking
            let stream = subscriber.stream
            #expect(lifecycle.all.map(\.1).filter(\.isConnectionLifecycle) == [.didConnect(stream)], "no didDisconnect/didReconnect: \(lifecycle.all.map(\.1))")
            let failures = bobEvents.all.filter { $0.0 >= start }.map(\.1).filter {
                switch $0 {
                case .streamDestroyed, .didDisconnect, .didFail, .streamCreated: true
                default: false
                }
            }
            #expect(failures.isEmpty, "no streamDestroyed, streamCreated, didDisconnect or didFail from the outage on: \(failures)")
            // The session goes on: a new subscription over the same signaling works.
            await bob.unsubscribe(subscriber)
            let again = CallSubscriber(stream: stream)
            let againEvents = Timed(again.events)
            let resubscribed = Date()
            try await bob.subscribe(again)
            let connected = await againEvents.wait(.seconds(20)) { $0 == .didConnect(stream) }
            progress("measured signaling outage: resubscribed after it in \(connected.map { String(format: "%.2f", $0.timeIntervalSince(resubscribed)) } ?? "never") s")
            #expect(connected != nil, "subscribing again after the outage connects")
        }
    }
}
