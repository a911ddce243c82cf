/// One ICE candidate pair of a friend connection as its stats report it (the `candidate-pair`
/// with its local and remote `candidate`s), reduced to what path classification needs.
public struct CandidatePairObservation: Hashable, Sendable {
    /// ICE candidate types (RFC 8445 §5.1.1.1).
    public enum CandidateType: String, Hashable, Sendable {
        /// An interface address.
        case host
        /// The address a STUN server saw.
        case serverReflexive = "srflx"
        /// The address the peer saw.
        case peerReflexive = "prflx"
        /// An address on a TURN relay.
        case relay
    }

    /// UDP or TCP.
    public enum TransportProtocol: String, Hashable, Sendable {
        /// UDP.
        case udp
        /// TCP (or TLS over TCP, for a relay allocation).
        case tcp
    }

    /// Our candidate's type.
    public var localType: CandidateType
    /// For a local relay candidate: how we reach the relay (`relayProtocol`); nil otherwise.
    public var localRelayProtocol: TransportProtocol?
    /// The peer's candidate's type.
    public var remoteType: CandidateType
    /// The pair's own transport (`protocol` of the local candidate).
    public var transport: TransportProtocol
    /// Whether its connectivity checks succeeded (`state == "succeeded"`).
    public var succeeded: Bool
    /// When the last check or consent response on it arrived (monotonic time of the caller's
    /// clock); nil when none ever did.
    public var lastResponseAt: Duration?
    /// Whether it is the pair the connection uses now (its transport's `selectedCandidatePairId`).
    public var selected: Bool
    /// Connectivity checks sent on it before the previous stats read and not answered since
    /// (from `requestsSent` and `responsesReceived`): a pair whose checks go unanswered is
    /// failing, however recent its last packet.
    public var unansweredChecks: Int

    /// Creates an observation.
    public init(localType: CandidateType, localRelayProtocol: TransportProtocol? = nil, remoteType: CandidateType,
                transport: TransportProtocol = .udp, succeeded: Bool, lastResponseAt: Duration?, selected: Bool = false,
                unansweredChecks: Int = 0) {
        self.selected = selected
        self.unansweredChecks = unansweredChecks
        self.localType = localType
        self.localRelayProtocol = localRelayProtocol
        self.remoteType = remoteType
        self.transport = transport
        self.succeeded = succeeded
        self.lastResponseAt = lastResponseAt
    }

    /// The path this pair would be, when it works: our relay over TCP → `tcpRelay`; a relay on
    /// either side otherwise → `udpRelay`; UDP with no relay → `udpDirect`; direct ICE-TCP has no
    /// path of its own in the seed's set and gives none.
    public var path: FriendConnectionPaths {
        if localType == .relay { return localRelayProtocol == .tcp ? .tcpRelay : .udpRelay }
        if remoteType == .relay { return transport == .udp ? .udpRelay : [] }
        return transport == .udp ? .udpDirect : []
    }
}
