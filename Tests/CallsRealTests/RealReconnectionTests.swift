import Calls
import CallsChromium
import CallScopeCore
import CallsJanus
import Foundation
import Observability
import Testing

/// Elements with the wall-clock time they arrived.
final class Timed<Element: Sendable>: Sendable {
    private let items = Locked<[(Date, Element)]>([])
    init(_ stream: AsyncStream<Element>) {
        Task { [weak self] in
            for await item in stream {
                guard let self else { return }
                self.items.withLock { $0.append((Date(), item)) }
            }
        }
    }
    var all: [(Date, Element)] { items.withLock { $0 } }
    func first(where predicate: (Element) -> Bool) -> Date? { all.first { predicate($0.1) }?.0 }

    func wait(_ timeout: Duration, until predicate: (Element) -> Bool) async -> Date? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let date = first(where: predicate) { return date }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return first(where: predicate)
    }
}

@Suite(.serialized, .enabled(if: NetworkNamespace.enabled, "needs CALLSCOPE_REAL_NETNS=1, root, ip, iptables (run under the rig lock)"))
struct RealReconnectionTests {
    /// Alice publishes from the root namespace, Bob subscribes from `csrig-calls`; `body` gets
    /// the namespace, Bob's session events, the subscriber and its lifecycle events.
    func withBlackoutRig(_ body: (NetworkNamespace, Timed<CallSessionEvent>, CallSubscriber, Timed<CallSubscriberEvent>) async throws -> Void) async throws {
        try await withBlackoutRig { namespace, _, _, bobEvents, subscriber, lifecycle in try await body(namespace, bobEvents, subscriber, lifecycle) }
    }

    /// The same rig, also giving `body` Janus' URL and Bob's session.
    func withBlackoutRig(_ body: (NetworkNamespace, URL, CallSession, Timed<CallSessionEvent>, CallSubscriber, Timed<CallSubscriberEvent>) async throws -> Void) async throws {
        await TwoClientCall.run("blackout scenario", .init(namespaced: .bob)) { call in
            try await body(try #require(call.namespace), call.url, call.bob, call.bobEvents, try #require(call.subscriber), try #require(call.lifecycle))
        }
    }

    /// Blacks the subscriber out for `seconds`; returns when the blackout ended, with its start
    /// and end (taken when iptables returned: the rule is then in place, or gone).
    func blackout(_ namespace: NetworkNamespace, seconds: Double) async throws -> (start: Date, end: Date) {
        progress("blackout on for \(seconds) s")
        try await namespace.startBlackout()
        let start = Date()
        try await Task.sleep(for: .milliseconds(Int((seconds - Date().timeIntervalSince(start)) * 1000)))
        try await namespace.endBlackout()
        let end = Date()
        progress("blackout off")
        return (start, end)
    }

    /// Everything toward the subscriber dropped for 8 s (the rig's subscriber-downlink
    /// blackout): `didDisconnect` within 4 s of the start, `didReconnect` within 3 s of the end,
    /// no `streamDestroyed` (docs/reconnection.md).
    @Test(.timeLimit(.minutes(3)))
    func subscriberBlackoutOf8SecondsDisconnectsAndReconnects() async throws {
        try await withBlackoutRig { namespace, bobEvents, subscriber, lifecycle in
            let stream = subscriber.stream
            let period = Task { try await blackout(namespace, seconds: 8) }
            let disconnected = await lifecycle.wait(.seconds(8)) { $0 == .didDisconnect(stream) }
            let (start, end) = try await period.value
            let reconnected = await lifecycle.wait(.seconds(20)) { $0 == .didReconnect(stream) }
            let detection = disconnected.map { $0.timeIntervalSince(start) }
            let recovery = reconnected.map { $0.timeIntervalSince(end) }
            progress("measured 8 s: didDisconnect \(detection.map { String(format: "%.2f", $0) } ?? "never") s after the start, "
                     + "didReconnect \(recovery.map { String(format: "%.2f", $0) } ?? "never") s after the end")
            #expect(detection.map { $0 <= 4 } == true, "didDisconnect within 4 s of the blackout start: \(String(describing: detection))")
            #expect(recovery.map { $0 <= 3 } == true, "didReconnect within 3 s of the blackout end: \(String(describing: recovery))")
            #expect(!bobEvents.all.contains { if case .streamDestroyed = $0.1 { true } else { false } })
            #expect(lifecycle.all.map(\.1).filter(\.isConnectionLifecycle) == [.didConnect(stream), .didDisconnect(stream), .didReconnect(stream)])
            // Paths (docs/spec/sessions.md §5): empty during the blackout, udpDirect after it; the
            // participant stays connected throughout.
            let alice = stream.connection.connectionId
            func paths(_ wanted: ConnectionPaths) -> (CallSessionEvent) -> Bool {
                { if case .participantPathsChanged(let p) = $0 { p.connectionId == alice && p.paths == wanted } else { false } }
            }
            let lost = bobEvents.all.first { $0.0 >= start && paths([])($0.1) }?.0
            var backAfterEnd: Date?
            let deadline = ContinuousClock.now + .seconds(10)
            while backAfterEnd == nil, ContinuousClock.now < deadline {
                backAfterEnd = bobEvents.all.first { $0.0 >= end && paths(.udpDirect)($0.1) }?.0
                try await Task.sleep(for: .milliseconds(50))
            }
            let pathLost = lost.map { $0.timeIntervalSince(start) }, pathBack = backAfterEnd.map { $0.timeIntervalSince(end) }
            progress("measured 8 s: paths empty \(pathLost.map { String(format: "%.2f", $0) } ?? "never") s after the start, "
                     + "udpDirect again \(pathBack.map { String(format: "%.2f", $0) } ?? "never") s after the end")
            #expect(pathLost.map { $0 <= 5 } == true, "paths empty within 5 s of the blackout start: \(String(describing: pathLost))")
            #expect(pathBack.map { $0 <= 5 } == true, "udpDirect within 5 s of the end: \(String(describing: pathBack))")
            #expect(!bobEvents.all.contains { if case .participantDidDisconnect = $0.1 { true } else { false } }, "empty paths do not disconnect alice")
            let changes = bobEvents.all.compactMap { item -> String? in
                guard case .participantPathsChanged(let p) = item.1 else { return nil }
                return String(format: "%+.2f s %@", item.0.timeIntervalSince(start), p.paths.description)
            }
            progress("paths changes (from the blackout start): \(changes)")
            // Steady media before the blackout: no flicker to empty.
            #expect(!bobEvents.all.contains { $0.0 < start && paths([])($0.1) }, "paths stayed udpDirect before the blackout: \(changes)")
        }
    }

    /// Dropped for 40 s, longer than the 30 s reconnect window: `streamDestroyed` (`mediaLost`)
    /// once, about 30 s after `didDisconnect`, and nothing for the stream after it, even when
    /// the path comes back.
    @Test(.timeLimit(.minutes(3)))
    func subscriberBlackoutOf40SecondsDestroysTheStreamAfterTheWindow() async throws {
        try await withBlackoutRig { namespace, bobEvents, subscriber, lifecycle in
            let stream = subscriber.stream
            let period = Task { try await blackout(namespace, seconds: 40) }
            let disconnected = await lifecycle.wait(.seconds(8)) { $0 == .didDisconnect(stream) }
            let (start, _) = try await period.value
            try await Task.sleep(for: .seconds(5))
            let destroyed = bobEvents.all.filter { if case .streamDestroyed(let s, .mediaLost) = $0.1 { s == stream } else { false } }
            let window = zip(disconnected.map { [$0] } ?? [], destroyed.map(\.0)).map { $1.timeIntervalSince($0) }.first
            progress("measured 40 s: didDisconnect \(disconnected.map { String(format: "%.2f", $0.timeIntervalSince(start)) } ?? "never") s after the start, "
                     + "streamDestroyed \(window.map { String(format: "%.2f", $0) } ?? "never") s after didDisconnect")
            #expect(destroyed.count == 1, "one streamDestroyed(mediaLost): \(destroyed.map(\.1))")
            #expect(window.map { $0 >= 29.5 && $0 <= 31.5 } == true, "streamDestroyed at the 30 s window: \(String(describing: window))")
            #expect(lifecycle.all.map(\.1).filter(\.isConnectionLifecycle) == [.didConnect(stream), .didDisconnect(stream)], "nothing after the end")
            #expect(bobEvents.all.filter { if case .streamDestroyed = $0.1 { true } else { false } }.count == 1)
        }
    }
}
