/// The `type` of a W3C stats entry (`RTCStatsType`), open to values this version does not know.
public struct StatsType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The W3C spelling, e.g. `outbound-rtp`.
    public let rawValue: String
    /// A small number for the types this version knows (0 otherwise), so comparing two known
    /// types costs one byte comparison.
    @usableFromInline let code: UInt8

    /// Wraps any type string; unknown ones are kept as they are.
    public init(rawValue: String) {
        self.rawValue = rawValue
        self.code = StatsType.knownCodes.firstIndex(of: rawValue).map { UInt8($0 + 1) } ?? 0
    }

    private static let knownCodes = [
        "codec", "inbound-rtp", "outbound-rtp", "remote-inbound-rtp", "remote-outbound-rtp", "media-source",
        "media-playout", "peer-connection", "data-channel", "transport", "candidate-pair", "local-candidate",
        "remote-candidate", "certificate", "track", "stream",
    ]

    /// The types this version knows, for switching without string comparison.
    public enum Known: UInt8, Sendable, CaseIterable {
        case codec = 1, inboundRTP, outboundRTP, remoteInboundRTP, remoteOutboundRTP, mediaSource
        case mediaPlayout, peerConnection, dataChannel, transport, candidatePair, localCandidate
        case remoteCandidate, certificate, track, stream
    }

    /// The known type, or `nil` for a type this version does not know.
    public var known: Known? { Known(rawValue: code) }

    @inlinable public static func == (lhs: StatsType, rhs: StatsType) -> Bool {
        lhs.code == rhs.code && (lhs.code != 0 || lhs.rawValue == rhs.rawValue)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public var description: String { rawValue }

    public static let codec = StatsType(rawValue: "codec")
    public static let inboundRTP = StatsType(rawValue: "inbound-rtp")
    public static let outboundRTP = StatsType(rawValue: "outbound-rtp")
    public static let remoteInboundRTP = StatsType(rawValue: "remote-inbound-rtp")
    public static let remoteOutboundRTP = StatsType(rawValue: "remote-outbound-rtp")
    public static let mediaSource = StatsType(rawValue: "media-source")
    public static let mediaPlayout = StatsType(rawValue: "media-playout")
    public static let peerConnection = StatsType(rawValue: "peer-connection")
    public static let dataChannel = StatsType(rawValue: "data-channel")
    public static let transport = StatsType(rawValue: "transport")
    public static let candidatePair = StatsType(rawValue: "candidate-pair")
    public static let localCandidate = StatsType(rawValue: "local-candidate")
    public static let remoteCandidate = StatsType(rawValue: "remote-candidate")
    public static let certificate = StatsType(rawValue: "certificate")
    /// Legacy (pre-2023 Chrome, Safari): one entry per media track.
    public static let track = StatsType(rawValue: "track")
    /// Legacy: one entry per media stream, listing its track entries.
    public static let stream = StatsType(rawValue: "stream")
}
