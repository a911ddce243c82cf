/// Can others reach me? (docs/spec/sessions.md §5.) Ordered: `offline` < `tcp` < `udp`.
public enum SelfConnectionStatus: String, Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    /// Neither a STUN binding over UDP nor a TURN allocation over TCP succeeded.
    case offline
    /// Reachable only through a TCP relay: UDP got no answer, a TURN allocation over TCP worked.
    case tcp
    /// Reachable over UDP: a STUN binding was answered.
    case udp

    private var rank: Int {
        switch self {
        case .offline: 0
        case .tcp: 1
        case .udp: 2
        }
    }

    /// Worse first.
    public static func < (lhs: SelfConnectionStatus, rhs: SelfConnectionStatus) -> Bool { lhs.rank < rhs.rank }

    /// The raw value.
    public var description: String { rawValue }
}

/// The probes that decide discoverability, in the order they are tried.
public enum DiscoverabilityProbe: String, Hashable, Sendable, CaseIterable {
    /// A STUN Binding request over UDP to the STUN server, retransmitted with backoff.
    case udpBinding
    /// A TURN Allocate over TCP with long-term credentials, freed at once with Refresh(0).
    case tcpAllocation

    /// The level a success of this probe proves.
    public var provenStatus: SelfConnectionStatus {
        switch self {
        case .udpBinding: .udp
        case .tcpAllocation: .tcp
        }
    }
}

/// What one probe found: performed by the platform part (`ConnectivityProbe`), fed back to
/// ``DiscoverabilityStateMachine``.
public struct DiscoverabilityProbeResult: Hashable, Sendable {
    /// Which probe.
    public var probe: DiscoverabilityProbe
    /// Whether the server answered as it should (binding answered; allocation granted).
    public var succeeded: Bool
    /// From the first byte sent to the answer, or to giving up.
    public var elapsed: Duration
    /// What happened, for a person: the address the server saw, the error, the timeout.
    public var detail: String
    /// Messages received and ignored because they could not be trusted (see `STUNResponseFilter`).
    public var ignoredMessages: Int

    /// Creates a result.
    public init(probe: DiscoverabilityProbe, succeeded: Bool, elapsed: Duration, detail: String, ignoredMessages: Int = 0) {
        self.probe = probe
        self.succeeded = succeeded
        self.elapsed = elapsed
        self.detail = detail
        self.ignoredMessages = ignoredMessages
    }
}

/// Why the status is what it is: the probes of the round that decided it.
public struct DiscoverabilityEvidence: Hashable, Sendable {
    /// The deciding round's probe results, in order.
    public var results: [DiscoverabilityProbeResult]
    /// How many consecutive rounds agreed on a worse level before it was adopted (1 for an
    /// immediate change).
    public var rounds: Int

    /// Creates evidence.
    public init(results: [DiscoverabilityProbeResult], rounds: Int) {
        self.results = results
        self.rounds = rounds
    }
}
