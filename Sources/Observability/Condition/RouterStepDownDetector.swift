/// Infers a step-down the router made on its own, for a stream whose layer policy gave the
/// engine no ``SubscriberReceiveLimit`` (a replay of a recording or dump without
/// `subscriber.receiveLimit` lines, an SFU that picks layers by itself).
///
/// After a loss burst on the downlink the router forwards a lower layer; the loss stops and the
/// counters alone would call the downlink healthy while the cap still holds. The facts that
/// say so: the measured downlink was degraded when the received video dropped below the height
/// it had while the downlink was healthy (the layer it asked for), and the publisher still
/// offers a layer above what arrives (its sender stats, received or derived, list the layers
/// it sends). From then on the limit is inferred to be `.downlink`, until the received video is
/// back at that height, or the publisher no longer offers anything above what arrives (then it
/// is the publisher's side that limits, which its own uplink condition reports).
///
/// Nothing is inferred without the publisher's layers (a received size below the top layer is
/// as often the app's own preference), nor from a drop while the downlink is healthy.
struct RouterStepDownDetector: Sendable {
    /// The height received while the downlink was last healthy: the layer asked for.
    private var healthyHeight: Int?
    /// The received heights of the last reports, newest last. The downlink's condition is
    /// adopted up to four reports after the interval that degraded it (judged two reports late,
    /// a worse level after two samples), so while it still says healthy the layer asked for is
    /// the highest of the last five, not one that may already be the router's step-down (or a
    /// one-report probe back up that failed).
    private var recentHeights: [Int] = []
    private let heightMemory = 5
    /// A step-down is inferred and holds.
    private(set) var holding = false

    /// Feeds one report: `receivedHeight` the decoded video height (`nil` or 0 when unknown),
    /// `offeredHeights` the heights of the layers the publisher's latest sender stats list,
    /// `downlink` the downlink as its counters alone scored it (no limit applied) before this
    /// report. Returns whether a step-down holds after it.
    mutating func update(receivedHeight: Int?, offeredHeights: [Int], downlink: NetworkCondition) -> Bool {
        guard let received = receivedHeight, received > 0 else { return holding }
        recentHeights.append(received)
        if recentHeights.count > heightMemory { recentHeights.removeFirst() }
        guard let offered = offeredHeights.max() else {
            // Without the publisher's layers nothing tells a step-down from a preference.
            holding = false
            return holding
        }
        if holding {
            if received >= (healthyHeight ?? 0) || offered <= received { holding = false }
        } else if downlink.isDegraded {
            if let asked = healthyHeight, received < asked, offered > received { holding = true }
        } else if downlink != .unknown {
            healthyHeight = recentHeights.max()
        }
        return holding
    }
}
