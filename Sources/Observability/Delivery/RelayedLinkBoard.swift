import CallScopeCore

/// The relayed links one device receives on, shared by the monitors of its subscribed streams:
/// each monitor posts its link's own condition after each report and reads the others' before
/// the next, so that a stream's trouble is put on this device's downlink only when its other
/// links show it too (``SubscriberStatsMonitor/shareRelayedLinks(on:)``; the rule is the
/// engine's `RelayedLinkAttribution`).
package final class RelayedLinkBoard: Sendable {
    package struct Link: Sendable, Hashable {
        package var condition: NetworkCondition
        package var reason: NetworkConditionReason
        /// The time of the report it was judged on (ms, the reports' clock).
        package var time: Double
    }

    private let links = Locked([String: Link]())

    /// An empty board (one per call session).
    package init() {}

    /// Posts the condition of the link on `peerConnection`.
    package func post(_ link: Link, peerConnection: String) {
        links.withLock { $0[peerConnection] = link }
    }

    /// Forgets the link on `peerConnection` (its subscription ended).
    package func remove(peerConnection: String) {
        _ = links.withLock { $0.removeValue(forKey: peerConnection) }
    }

    /// Every link but the one on `peerConnection`.
    package func links(except peerConnection: String) -> [String: Link] {
        links.withLock { $0.filter { $0.key != peerConnection } }
    }
}
