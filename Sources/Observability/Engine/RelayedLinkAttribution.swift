/// Whose side a relayed (peer-to-peer) media link's trouble is on, from the links alone.
///
/// A relayed subscriber receives straight from its publisher: the packets cross the publisher's
/// uplink and this device's downlink with no router in between to measure at, and the
/// publisher's own view of the link (its `remote-inbound-rtp`) is made of this subscriber's
/// receiver reports, the same loss. One link alone cannot tell the two ends apart. Several links
/// can: this device's downlink is common to every link it receives on, each publisher's uplink
/// to its own link only (docs/peer-to-peer.md, "The subscriber's remote side").
///
/// - The link is not degraded: both sides are as the link (nothing to attribute).
/// - Degraded, and another fresh link of this device is not: this downlink carries media well
///   elsewhere, so the trouble is on the publisher's side. Local takes the best other link's
///   condition; remote takes the link's.
/// - Degraded, and every other fresh link is degraded too: the common part, this downlink.
///   Local takes the link's condition; remote is `unknown` (nothing tells it).
/// - Degraded, and no other link: both sides as the link, so the source is `bothOrUnclear`.
struct RelayedLinkAttribution: Sendable, Hashable {
    /// A link's adopted condition and its reason.
    struct Judgement: Sendable, Hashable {
        var condition: NetworkCondition
        var reason: NetworkConditionReason
    }

    /// This device's downlink, as the links show it.
    var local: Judgement
    /// The publisher's side of this link, as the links show it.
    var remote: Judgement

    /// Attributes `link` given the other fresh links this device receives on (`unknown` ones
    /// say nothing and are left out).
    init(link: Judgement, otherLinks: [Judgement]) {
        let others = otherLinks.filter { $0.condition != .unknown }
        guard link.condition.isDegraded, let best = others.max(by: { $0.condition < $1.condition }) else {
            local = link
            remote = link
            return
        }
        if best.condition.isDegraded {
            local = link
            remote = Judgement(condition: .unknown, reason: .unknown)
        } else {
            local = best
            remote = link
        }
    }
}
