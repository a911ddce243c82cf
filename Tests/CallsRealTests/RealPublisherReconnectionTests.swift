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
