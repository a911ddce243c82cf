import Foundation

extension StatsReport {
    /// One entry of Apple WebRTC's `RTCStatisticsReport.statistics`: `RTCStatistics`' type,
    /// `timestamp_us` and `values`.
    public struct AppleStatistic {
        /// The W3C type, e.g. `outbound-rtp`.
        public var type: String
        /// The entry's timestamp, µs since 1970.
        public var timestampUs: Double
        /// The entry's values.
        public var values: [String: Any]

        /// Creates an entry.
        public init(type: String, timestampUs: Double, values: [String: Any]) {
            self.type = type
            self.timestampUs = timestampUs
            self.values = values
        }
    }

    /// Builds a report from the shape of Apple WebRTC's `RTCStatisticsReport`: a dictionary keyed
    /// by entry id of `(type, timestamp in µs, values)`. No JSON is involved.
    ///
    /// ```swift
    /// peerConnection.statistics { rtcReport in
    ///     let report = StatsReport(appleStatistics: rtcReport.statistics.mapValues {
    ///         StatsReport.AppleStatistic(type: $0.type, timestampUs: $0.timestamp_us, values: $0.values)
    ///     })
    ///     monitor.ingest(report, peerConnection: "pub-1")
    /// }
    /// ```
    ///
    /// Values may be `NSNumber`/Swift numbers, Booleans, strings, arrays and dictionaries;
    /// anything else is kept as its description string.
    public init(appleStatistics: [String: AppleStatistic]) {
        self.init(appleStatistics: appleStatistics.map { (id: $0.key, type: $0.value.type, timestampMicroseconds: $0.value.timestampUs,
                                                          values: $0.value.values) })
    }

    /// Builds a report from `RTCStatistics` objects taken apart: each one's `id`, `type`,
    /// `timestamp_us` and `values`, as the Objective-C bridge hands them over (`NSNumber` for
    /// numbers and Booleans, `NSString`, `NSArray`, `NSDictionary`). The `CallsWebRTC` adapter's
    /// `StatsReport(appleStatistics: RTCStatisticsReport)` maps each `RTCStatistics` into this;
    /// it is separate so that the conversion runs, and is tested, where the framework does not
    /// exist.
    ///
    /// Entries come out sorted by id and fields by name (`RTCStatisticsReport.statistics` and
    /// `values` are dictionaries: they have no order of their own). An `NSNumber` that the bridge
    /// made from a `BOOL` becomes ``JSONValue/bool(_:)``; every other number, including 0 and 1
    /// counters, ``JSONValue/number(_:)``. A later entry with an id already seen replaces it.
    package init(appleStatistics entries: [(id: String, type: String, timestampMicroseconds: Double, values: [String: Any])]) {
        var byID: [String: StatsEntry] = [:]
        byID.reserveCapacity(entries.count)
        for entry in entries {
            let fields = entry.values.sorted { $0.key < $1.key }.map { StatsField($0.key, JSONValue(any: $0.value)) }
            byID[entry.id] = StatsEntry(id: entry.id, type: StatsType(rawValue: entry.type), timestamp: entry.timestampMicroseconds / 1000,
                                        fields: fields)
        }
        self.init(entries: byID.sorted { $0.key < $1.key }.map(\.value))
    }
}

extension JSONValue {
    /// Converts a Foundation/Objective-C property-list-like value.
    public init(any value: Any) {
        switch value {
        case let value as JSONValue: self = value
        case let number as NSNumber:
            // `[NSNumber numberWithBool:]` (and a Swift `Bool` boxed as `Any`) is the shared
            // boolean class on both Foundations; `is Bool` alone is true for any 0 or 1 counter.
            if ObjectIdentifier(type(of: number)) == JSONValue.booleanNumberClass {
                self = .bool(number.boolValue)
            } else {
                self = .number(number.doubleValue)
            }
        case let flag as Bool: self = .bool(flag)
        case let integer as Int: self = .number(Double(integer))
        case let double as Double: self = .number(double)
        case let string as String: self = .string(string)
        case let array as [Any]: self = .array(array.map(JSONValue.init(any:)))
        case let dictionary as [String: Any]:
            self = .object(dictionary.sorted { $0.key < $1.key }.map { StatsField($0.key, JSONValue(any: $0.value)) })
        case is NSNull: self = .null
        default: self = .string(String(describing: value))
        }
    }
}

extension JSONValue {
    /// The class of a boolean `NSNumber` (`__NSCFBoolean`).
    fileprivate static let booleanNumberClass = ObjectIdentifier(type(of: NSNumber(value: true)))
}
