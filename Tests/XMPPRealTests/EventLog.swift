import Foundation
import XMPP
import XMPPClient

/// Every event of one client, timestamped, for the test to wait on.
actor EventLog {
    private(set) var entries: [(at: ContinuousClock.Instant, event: XMPPClientEvent)] = []

    /// A log of `client`'s events from now on.
    static func recording(_ client: XMPPClient) -> EventLog {
        let log = EventLog()
        let stream = client.events()
        Task { for await event in stream { await log.append(event) } }
        return log
    }

    private func append(_ event: XMPPClientEvent) { entries.append((.now, event)) }

    /// The first event at or after `index` matching `predicate`, waiting at most `timeout`.
    func first(after index: Int = 0, within timeout: Duration, where predicate: @Sendable (XMPPClientEvent) -> Bool) async -> (index: Int, at: ContinuousClock.Instant, event: XMPPClientEvent)? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = entries.indices.first(where: { $0 >= index && predicate(entries[$0].event) }) {
                return (found, entries[found].at, entries[found].event)
            }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    var count: Int { entries.count }
    var events: [XMPPClientEvent] { entries.map(\.event) }
}
