extension ConnectionPaths {
    /// The paths a sender-stats message carries (its far leg, wire version 3).
    public init(_ paths: [SenderStatsMessage.Path]) {
        self = paths.reduce(into: ConnectionPaths()) { set, path in
            switch path {
            case .udpDirect: set.insert(.udpDirect)
            case .udpRelay: set.insert(.udpRelay)
            case .tcpRelay: set.insert(.tcpRelay)
            }
        }
    }

    /// These paths as a sender-stats message carries them, in declaration order.
    public var senderStatsPaths: [SenderStatsMessage.Path] {
        SenderStatsMessage.Path.allCases.filter { path in
            switch path {
            case .udpDirect: contains(.udpDirect)
            case .udpRelay: contains(.udpRelay)
            case .tcpRelay: contains(.tcpRelay)
            }
        }
    }
}
