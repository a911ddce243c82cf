import Connectivity

/// The discoverability a ``FriendManager`` reports: the level its probes measured, except while
/// the XMPP stream is down for good (no one can reach us to set up a connection), when it is
/// `offline`. A value: each input returns the level to report when it changed.
struct DiscoverabilityPublication: Hashable, Sendable {
    /// What the probes measured last, with its evidence.
    private(set) var measured: SelfConnectionStatus?
    private(set) var evidence = DiscoverabilityEvidence(results: [], rounds: 0)
    /// The XMPP stream has been down longer than the manager waits for its reconnection.
    private(set) var streamDown = false

    /// The level reported now; `nil` until the first round ended.
    var reported: SelfConnectionStatus? { streamDown ? .offline : measured }

    /// The probes decided `status`.
    mutating func measured(_ status: SelfConnectionStatus, _ evidence: DiscoverabilityEvidence) -> SelfConnectionStatus? {
        change {
            $0.measured = status
            $0.evidence = evidence
        }
    }

    /// The stream is down for good (`true`) or back (`false`).
    mutating func stream(down: Bool) -> SelfConnectionStatus? {
        change { $0.streamDown = down }
    }

    private mutating func change(_ body: (inout Self) -> Void) -> SelfConnectionStatus? {
        let before = reported
        body(&self)
        return reported != before ? reported : nil
    }
}
