import Calls
import Foundation
import Testing

extension RealReconnectionTests {
    /// Alice's Chromium in `csrig-calls`, everything arriving there dropped for 8 s: her
    /// publisher sees its selected pair's received bytes (Janus' RTCP and consent responses)
    /// stop while it keeps sending, reports `didDisconnect`, restarts ICE with its own offer,
    /// and `didReconnect` once the path is back; it is still publishing, and Bob's session
    /// never loses her stream for good (a stream destroyed is created again).
    @Test(.timeLimit(.minutes(3)))
    func publisherBlackoutOf8SecondsDisconnectsAndReconnects() async throws {
        await TwoClientCall.run("publisher blackout", .init(namespaced: .alice)) { call in
            let namespace = try #require(call.namespace)
            let published = try #require(call.publisher.stream)
            let period = Task { try await blackout(namespace, seconds: 8) }
            let disconnected = await call.publisherEvents.wait(.seconds(8)) { if case .didDisconnect = $0 { true } else { false } }
            let (start, end) = try await period.value
            let reconnected = await call.publisherEvents.wait(.seconds(20)) { if case .didReconnect = $0 { true } else { false } }
            let detection = disconnected.map { $0.timeIntervalSince(start) }, recovery = reconnected.map { $0.timeIntervalSince(end) }
            progress("measured publisher 8 s: didDisconnect \(detection.map { String(format: "%.2f", $0) } ?? "never") s after the start, "
                     + "didReconnect \(recovery.map { String(format: "%.2f", $0) } ?? "never") s after the end; "
                     + "events \(call.publisherEvents.all.map { String(format: "%+.2f %@", $0.0.timeIntervalSince(start), "\($0.1)".prefix(40).description) })")
            let onTime = (detection.map { $0 <= 4 } ?? false) && (recovery.map { $0 <= 5 } ?? false)
            if !onTime {
                let since = start.timeIntervalSince1970 - 1
                let trace = call.aliceEngine.trace.filter { line in line.split(separator: " ").first.flatMap { Double($0) }.map { $0 >= since } ?? true }
                diagnostics("alice's engine since 1 s before the blackout (\(start.timeIntervalSince1970)–\(end.timeIntervalSince1970)):", trace)
                diagnostics("janus' ICE lines, the last 40:", Array(call.janus.iceLog().suffix(40)))
            }
            #expect(detection.map { $0 <= 4 } == true, "publisher didDisconnect within 4 s of the start: \(String(describing: detection))")
            #expect(recovery.map { $0 <= 5 } == true, "publisher didReconnect within 5 s of the end: \(String(describing: recovery))")
            #expect(!call.publisherEvents.all.contains { if case .streamDestroyed = $0.1 { true } else { false } })
            #expect(call.publisher.stream != nil, "still publishing")
            let bobLines = call.bobEvents.all.compactMap { item -> String? in
                switch item.1 {
                case .streamCreated(let s): String(format: "%+.2f streamCreated %@", item.0.timeIntervalSince(start), s.streamId)
                case .streamDestroyed(let s, let r): String(format: "%+.2f streamDestroyed %@ %@", item.0.timeIntervalSince(start), s.streamId, r.rawValue)
                default: nil
                }
            }
            progress("bob's stream events: \(bobLines), alice published as \(published.streamId), now \(call.publisher.stream?.streamId ?? "-")")
            // Bob ends with alice's current stream in his session.
            let current = try #require(call.publisher.stream?.streamId)
            var seen = false
            for _ in 0..<100 where !seen {
                seen = await call.bob.streams.contains { $0.streamId == current }
                if !seen { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(seen, "bob sees alice's stream \(current) within 10 s: \(bobLines)")
        }
    }
}

extension RealReconnectionTests {
    /// Alice's namespace dropped for 40 s, longer than the 30 s window: her publisher reports
    /// `didDisconnect`, then, its media not back within the window, `streamDestroyed`
    /// (`mediaLost`) once, about 30 s later, and stops publishing; nothing after it, even when the
    /// path comes back. Bob's session loses her stream (Janus' `unpublished`), once.
    @Test(.timeLimit(.minutes(3)))
    func publisherBlackoutOf40SecondsUnpublishesAfterTheWindow() async throws {
        await TwoClientCall.run("publisher 40 s blackout", .init(namespaced: .alice)) { call in
            let namespace = try #require(call.namespace)
            let period = Task { try await blackout(namespace, seconds: 40) }
            let disconnected = await call.publisherEvents.wait(.seconds(8)) { if case .didDisconnect = $0 { true } else { false } }
            let (start, _) = try await period.value
            try await Task.sleep(for: .seconds(5))
            let events = call.publisherEvents.all
            let destroyed = events.filter { if case .streamDestroyed(_, .mediaLost) = $0.1 { true } else { false } }
            let window = zip(disconnected.map { [$0] } ?? [], destroyed.map(\.0)).map { $1.timeIntervalSince($0) }.first
            let bobLines = call.bobEvents.all.compactMap { item -> String? in
                switch item.1 {
                case .streamCreated(let s): String(format: "%+.2f streamCreated %@", item.0.timeIntervalSince(start), s.streamId)
                case .streamDestroyed(let s, let r): String(format: "%+.2f streamDestroyed %@ %@", item.0.timeIntervalSince(start), s.streamId, r.rawValue)
                case .connectionDestroyed(let c): String(format: "%+.2f connectionDestroyed %@", item.0.timeIntervalSince(start), c.connectionId)
                case .connectionCreated(let c): String(format: "%+.2f connectionCreated %@", item.0.timeIntervalSince(start), c.connectionId)
                default: nil
                }
            }
            progress("measured publisher 40 s: didDisconnect \(disconnected.map { String(format: "%.2f", $0.timeIntervalSince(start)) } ?? "never") s after the start, "
                     + "streamDestroyed \(window.map { String(format: "%.2f", $0) } ?? "never") s after didDisconnect; publisher events "
                     + "\(events.map { String(format: "%+.2f %@", $0.0.timeIntervalSince(start), "\($0.1)".prefix(30).description) }); bob: \(bobLines)")
            #expect(disconnected.map { $0.timeIntervalSince(start) <= 4 } == true, "didDisconnect within 4 s")
            #expect(destroyed.count == 1, "one streamDestroyed(mediaLost): \(events.map(\.1))")
            #expect(window.map { $0 >= 29.5 && $0 <= 31.5 } == true, "streamDestroyed at the 30 s window: \(String(describing: window))")
            #expect(call.publisher.stream == nil, "no longer publishing")
            if let end = destroyed.first?.0 {
                #expect(!events.contains { $0.0 > end }, "nothing after streamDestroyed: \(events.map(\.1))")
            }
            let bobDestroyed = call.bobEvents.all.filter { if case .streamDestroyed(let s, _) = $0.1 { s.streamId == call.stream.streamId } else { false } }
            #expect(bobDestroyed.count == 1, "bob loses alice's stream once: \(bobLines)")
        }
    }
}
