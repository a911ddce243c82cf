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
        var entries: [StatsEntry] = []
        entries.reserveCapacity(appleStatistics.count)
        for (id, object) in appleStatistics.sorted(by: { $0.key < $1.key }) {
            let fields = object.values.sorted { $0.key < $1.key }.map { StatsField($0.key, StatsValue(any: $0.value)) }
            entries.append(StatsEntry(id: id, type: StatsType(rawValue: object.type), timestamp: object.timestampUs / 1000, fields: fields))
        }
        self.init(entries: entries)
    }
}

extension StatsValue {
    /// Converts a Foundation/Objective-C property-list-like value.
    public init(any value: Any) {
        switch value {
        case let value as StatsValue: self = value
        case let number as NSNumber:
            let objCType = String(cString: number.objCType)
            if objCType == "c" || objCType == "B", number.intValue == 0 || number.intValue == 1, value is Bool {
                self = .bool(number.boolValue)
            } else {
                self = .number(number.doubleValue)
            }
        case let flag as Bool: self = .bool(flag)
        case let integer as Int: self = .number(Double(integer))
        case let double as Double: self = .number(double)
        case let string as String: self = .string(string)
        case let array as [Any]: self = .array(array.map(StatsValue.init(any:)))
        case let dictionary as [String: Any]:
            self = .object(dictionary.sorted { $0.key < $1.key }.map { StatsField($0.key, StatsValue(any: $0.value)) })
        case is NSNull: self = .null
        default: self = .string(String(describing: value))
        }
    }
}
