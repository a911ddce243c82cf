import RTCStats

/// Reads sender-stats messages received from a remote publisher. They are untrusted: size
/// bounded, version checked, every number validated, rate limited. A bad message is dropped and
/// counted, and never changes the state a good one left.
public struct SenderStatsDecoder: Sendable {
    /// Why a message was dropped.
    public enum Rejection: String, Error, Sendable, Hashable, CaseIterable {
        /// Larger than ``SenderStatsMessage/maximumSize``.
        case tooLarge
        /// Not a JSON object.
        case malformed
        /// Another message type, or a version this build does not read.
        case unsupportedVersion
        /// A field is missing, of the wrong type, not finite, negative or absurd.
        case invalidValue
        /// Arrived sooner than the minimum interval after the last accepted one.
        case rateLimited
        /// Not newer than the last accepted one (replayed or reordered).
        case stale
    }

    /// Messages accepted.
    public private(set) var accepted = 0
    /// Messages dropped, by reason.
    public private(set) var dropped: [Rejection: Int] = [:]
    /// The minimum time between two accepted messages, ms (default: a quarter of the interval).
    public var minimumInterval: Double
    private var lastAcceptedAt: Double?
    private var lastSequence: Int?

    static let maximumBitrate = 100_000_000_000.0
    static let maximumRoundTrip = 60_000.0

    /// Creates a decoder.
    public init(minimumInterval: Double = 250) {
        self.minimumInterval = minimumInterval
    }

    /// Total messages dropped.
    public var droppedCount: Int { dropped.values.reduce(0, +) }

    /// Decodes one message received at `time` (ms); `nil` when it was dropped (and counted).
    public mutating func decode(_ bytes: [UInt8], receivedAt time: Double) -> SenderStatsMessage? {
        switch Self.validate(bytes) {
        case .failure(let rejection):
            dropped[rejection, default: 0] += 1
            return nil
        case .success(let message):
            return accept(message, receivedAt: time)
        }
    }

    /// Accepts a message that passed ``validate(_:)`` unless it is stale or too soon after the
    /// last accepted one; `nil` when it was dropped (and counted).
    public mutating func accept(_ message: SenderStatsMessage, receivedAt time: Double) -> SenderStatsMessage? {
        if let lastSequence, message.sequence <= lastSequence {
            dropped[.stale, default: 0] += 1
            return nil
        }
        if let lastAcceptedAt, time - lastAcceptedAt < minimumInterval {
            dropped[.rateLimited, default: 0] += 1
            return nil
        }
        lastAcceptedAt = time
        lastSequence = message.sequence
        accepted += 1
        return message
    }

    /// Counts a message dropped before it reached this decoder (e.g. it failed
    /// ``validate(_:)`` where the publisher it came from was not yet known).
    public mutating func countDropped(_ rejection: Rejection) {
        dropped[rejection, default: 0] += 1
    }

    /// Checks one message's size, type, version and every value, without sequencing it.
    public static func validate(_ bytes: [UInt8]) -> Result<SenderStatsMessage, Rejection> {
        guard bytes.count <= SenderStatsMessage.maximumSize else { return .failure(.tooLarge) }
        guard let value = try? JSONParser.parse(bytes), value.object != nil else { return .failure(.malformed) }
        guard value["type"]?.string == SenderStatsMessage.typeTag, let version = value["v"]?.number, version == version.rounded(), SenderStatsMessage.readableVersions.contains(Int(exactly: version) ?? 0) else {
            return .failure(.unsupportedVersion)
        }
        func number(_ name: String, max limit: Double, optional: Bool) -> Double?? {
            guard let field = value[name], field != .null else { return optional ? .some(nil) : nil }
            guard let number = field.number, number.isFinite, number >= 0, number <= limit else { return nil }
            return .some(number)
        }
        guard let sequence = number("seq", max: 9_007_199_254_740_991, optional: false) ?? nil,
              let timestamp = number("t", max: 9_007_199_254_740_991, optional: false) ?? nil,
              let allocated = number("connectionMaxAllocatedBitrate", max: Self.maximumBitrate, optional: false) ?? nil,
              let estimate = number("connectionEstimatedBandwidth", max: Self.maximumBitrate, optional: true),
              let roundTrip = number("rttMs", max: Self.maximumRoundTrip, optional: true),
              let loss = number("lossFraction", max: 1, optional: true)
        else { return .failure(.invalidValue) }
        var condition: NetworkCondition?
        if let field = value["condition"], field != .null {
            guard let parsed = field.string.flatMap(NetworkCondition.init(rawValue:)) else { return .failure(.invalidValue) }
            condition = parsed
        }
        var reason: NetworkConditionReason?
        if let field = value["reason"], field != .null {
            guard let parsed = field.string.flatMap(NetworkConditionReason.init(rawValue:)) else { return .failure(.invalidValue) }
            reason = parsed
        }
        var publisher: PublisherID?
        if let field = value["publisher"], field != .null {
            guard let name = field.string, (1...SenderStatsMessage.maximumPublisherLength).contains(name.utf8.count) else { return .failure(.invalidValue) }
            publisher = PublisherID(name)
        }
        var layers: [SenderStatsMessage.Layer] = []
        if let field = value["layers"], field != .null {
            guard let array = field.array, array.count <= 8 else { return .failure(.invalidValue) }
            for element in array {
                guard let width = element["w"]?.number, let height = element["h"]?.number, let bitrate = element["bps"]?.number,
                      (0...16384).contains(width), (0...16384).contains(height), width == width.rounded(), height == height.rounded(),
                      bitrate.isFinite, bitrate >= 0, bitrate <= Self.maximumBitrate
                else { return .failure(.invalidValue) }
                var rid: String?
                if let field = element["rid"], field != .null {
                    guard let text = field.string, (1...SenderStatsMessage.maximumRidLength).contains(text.utf8.count) else { return .failure(.invalidValue) }
                    rid = text
                }
                layers.append(.init(width: Int(width), height: Int(height), bitrate: bitrate, rid: rid))
            }
        }
        var audioFallbackEnabled: Bool?
        if let field = value["audioFallbackEnabled"], field != .null {
            guard case .bool(let allowed) = field else { return .failure(.invalidValue) }
            audioFallbackEnabled = allowed
        }
        // Version 3: the publisher's paths, each a known name at most once (versions 1 and 2
        // did not define the field: ignored there, as any unknown field).
        var paths: [SenderStatsMessage.Path]?
        if version >= 3, let field = value["paths"], field != .null {
            guard let array = field.array, array.count <= SenderStatsMessage.Path.allCases.count else { return .failure(.invalidValue) }
            var found: [SenderStatsMessage.Path] = []
            for element in array {
                guard let path = element.string.flatMap(SenderStatsMessage.Path.init(rawValue:)), !found.contains(path) else { return .failure(.invalidValue) }
                found.append(path)
            }
            paths = found
        }
        var videoEnabled: Bool?
        if let field = value["videoEnabled"], field != .null {
            guard case .bool(let enabled) = field else { return .failure(.invalidValue) }
            videoEnabled = enabled
        }
        return .success(SenderStatsMessage(
            sequence: Int(sequence), timestamp: timestamp, connectionMaxAllocatedBitrate: allocated,
            connectionEstimatedBandwidth: estimate, roundTripTime: roundTrip, lossFraction: loss,
            condition: condition, reason: reason, layers: layers, publisher: publisher, audioFallbackEnabled: audioFallbackEnabled,
            paths: paths, videoEnabled: videoEnabled))
    }
}
