/// The ICE-UDP transport of a content (XEP-0176), with its DTLS fingerprint (XEP-0320) and, for
/// the data channel, its SCTP parameters (XEP-0343).
public struct JingleICETransport: Hashable, Sendable {
    /// The ICE username fragment (`a=ice-ufrag`).
    public var usernameFragment: String?
    /// The ICE password (`a=ice-pwd`).
    public var password: String?
    /// The candidates: all gathered ones in an SDP without trickle, the new ones in a
    /// transport-info.
    public var candidates: [JingleICECandidate]
    /// The DTLS certificate fingerprints and setup role (`a=fingerprint`, `a=setup`).
    public var fingerprints: [JingleFingerprint]
    /// The SCTP association of a data-channel content (`a=sctp-port`, `a=max-message-size`).
    public var sctp: JingleSCTP?

    /// Creates a transport.
    public init(usernameFragment: String? = nil, password: String? = nil, candidates: [JingleICECandidate] = [],
                fingerprints: [JingleFingerprint] = [], sctp: JingleSCTP? = nil) {
        self.usernameFragment = usernameFragment
        self.password = password
        self.candidates = candidates
        self.fingerprints = fingerprints
        self.sctp = sctp
    }
}

/// One ICE candidate (XEP-0176 `<candidate/>`, RFC 8839 `a=candidate`).
public struct JingleICECandidate: Hashable, Sendable {
    /// The candidate type (RFC 8445 §5.1.1).
    public enum CandidateType: String, Hashable, Sendable {
        /// A local address.
        case host
        /// Server reflexive (STUN).
        case srflx
        /// Peer reflexive.
        case prflx
        /// A TURN relay.
        case relay
    }

    /// The foundation.
    public var foundation: String
    /// The component (1 = RTP; 2 = RTCP without rtcp-mux).
    public var component: UInt8
    /// `udp` or `tcp`, lower-case.
    public var transportProtocol: String
    /// The priority.
    public var priority: UInt32
    /// The address: IPv4, IPv6 or an mDNS name (`….local`).
    public var address: String
    /// The port.
    public var port: UInt16
    /// The type.
    public var type: CandidateType
    /// The related address (`raddr`, XEP-0176 `rel-addr`) of a reflexive or relayed candidate.
    public var relatedAddress: String?
    /// The related port (`rport`, `rel-port`).
    public var relatedPort: UInt16?
    /// `active`, `passive` or `so` for ICE-TCP candidates (RFC 6544).
    public var tcpType: String?
    /// The ICE generation (0 until an ICE restart).
    public var generation: UInt32
    /// Chromium's network id (`network-id`, XEP-0176 `network`).
    public var networkID: UInt32?
    /// Chromium's network cost (`network-cost`: 10 wired, 999 unknown), a hint for pair selection.
    public var networkCost: UInt32?

    /// Creates a candidate.
    public init(foundation: String, component: UInt8 = 1, transportProtocol: String = "udp", priority: UInt32,
                address: String, port: UInt16, type: CandidateType, relatedAddress: String? = nil,
                relatedPort: UInt16? = nil, tcpType: String? = nil, generation: UInt32 = 0,
                networkID: UInt32? = nil, networkCost: UInt32? = nil) {
        self.foundation = foundation
        self.component = component
        self.transportProtocol = transportProtocol
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.tcpType = tcpType
        self.generation = generation
        self.networkID = networkID
        self.networkCost = networkCost
    }

    /// The XEP-0176 `id`: unique in a session and stable for the same candidate (foundation,
    /// component, protocol, port and generation identify one gathered candidate).
    public var id: String { "\(foundation)-\(component)-\(transportProtocol)-\(port)-\(generation)" }
}

/// A DTLS certificate fingerprint and the DTLS role offered or taken (XEP-0320).
public struct JingleFingerprint: Hashable, Sendable {
    /// The DTLS role (RFC 4145 `a=setup`).
    public enum Setup: String, Hashable, Sendable {
        /// Either role (an offer).
        case actpass
        /// The DTLS client.
        case active
        /// The DTLS server.
        case passive
        /// Not now.
        case holdconn
    }

    /// The hash function (`sha-256`), lower-case.
    public var hashFunction: String
    /// The setup role.
    public var setup: Setup
    /// The fingerprint: upper-case hex bytes separated by colons.
    public var value: String

    /// Creates a fingerprint.
    public init(hashFunction: String, setup: Setup, value: String) {
        self.hashFunction = hashFunction
        self.setup = setup
        self.value = value
    }
}

/// The SCTP association of a data channel (XEP-0343 `<sctpmap/>`; RFC 8841).
public struct JingleSCTP: Hashable, Sendable {
    /// The SCTP port (`a=sctp-port`, `sctpmap number`); 5000 in Chromium.
    public var port: UInt16
    /// The largest message the sender of this description accepts (`a=max-message-size`), when
    /// given; 0 means no limit (RFC 8841 §6).
    public var maximumMessageSize: UInt64?
    /// The number of streams (`sctpmap streams`), when given; WebRTC negotiates streams in-band.
    public var streams: UInt16?

    /// Creates SCTP parameters.
    public init(port: UInt16 = 5000, maximumMessageSize: UInt64? = nil, streams: UInt16? = nil) {
        self.port = port
        self.maximumMessageSize = maximumMessageSize
        self.streams = streams
    }
}
