import Connectivity

/// Where and how to probe discoverability.
public struct DiscoverabilityProbeConfiguration: Hashable, Sendable {
    /// The STUN server for the UDP binding.
    public var stunServer: ProbeEndpoint
    /// The TURN server for the TCP allocation; without it (or without credentials) a failed
    /// binding means `offline`.
    public var turnServer: ProbeEndpoint?
    /// The TURN server's long-term credentials.
    public var credentials: STUNCredentials?
    /// Retransmissions of the UDP binding.
    public var udpSchedule: STUNRetransmissionSchedule
    /// The whole TCP allocation (connect, 401, authenticated Allocate) must finish within this.
    public var tcpTimeout: Duration

    /// Creates a configuration.
    public init(stunServer: ProbeEndpoint, turnServer: ProbeEndpoint? = nil, credentials: STUNCredentials? = nil,
                udpSchedule: STUNRetransmissionSchedule = .probeDefault, tcpTimeout: Duration = .milliseconds(2500)) {
        self.stunServer = stunServer
        self.turnServer = turnServer
        self.credentials = credentials
        self.udpSchedule = udpSchedule
        self.tcpTimeout = tcpTimeout
    }

    /// Whether the TCP probe can run.
    public var tcpRelayConfigured: Bool { turnServer != nil && credentials != nil }
}

/// Runs the probes over POSIX sockets (blocking the calling thread, each bounded by its timeout).
public struct DiscoverabilityProber: Sendable {
    /// The configuration.
    public let configuration: DiscoverabilityProbeConfiguration

    /// Creates a prober.
    public init(configuration: DiscoverabilityProbeConfiguration) {
        self.configuration = configuration
    }

    /// Runs one probe and reports what it found.
    public func run(_ probe: DiscoverabilityProbe) -> DiscoverabilityProbeResult {
        switch probe {
        case .udpBinding:
            return UDPBindingProbe(server: configuration.stunServer, schedule: configuration.udpSchedule).run()
        case .tcpAllocation:
            guard let server = configuration.turnServer, let credentials = configuration.credentials else {
                return DiscoverabilityProbeResult(probe: .tcpAllocation, succeeded: false, elapsed: .zero, detail: "no TURN server configured")
            }
            return TURNAllocationProbe(server: server, credentials: credentials, timeout: configuration.tcpTimeout).run()
        }
    }
}
