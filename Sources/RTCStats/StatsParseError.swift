import CallScopeCore

/// Why a stats input could not be read, with where and what was expected.
///
/// A struct over a code so that new cases can be added without breaking callers.
public struct StatsParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure (a growing set).
    public typealias Code = ErrorCode<StatsParseError>

    /// The kind of failure.
    public var code: Code
    /// What was wrong and what was expected, for a person.
    public var message: String
    /// 1-based line of a line-oriented input, when known.
    public var line: Int?
    /// Byte offset within the line or document, when known.
    public var offset: Int?
    /// The series it concerns (a webrtc-internals `<statsId>-<field>` key), when it concerns one.
    public var series: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, line: Int? = nil, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.offset = offset
    }

    public var description: String {
        var location = ""
        if let series { location += "series \(series)" }
        if let line { location += location.isEmpty ? "line \(line)" : ", line \(line)" }
        if let offset { location += location.isEmpty ? "byte \(offset)" : ", byte \(offset)" }
        return location.isEmpty ? message : "\(location): \(message)"
    }

    /// The same error, attributed to a series.
    func `in`(series: String) -> StatsParseError {
        var copy = self
        copy.series = series
        return copy
    }

    /// The same error, attributed to a line.
    func at(line: Int) -> StatsParseError {
        var copy = self
        copy.line = line
        return copy
    }
}

extension ErrorCode where Domain == StatsParseError {
    /// The bytes are not valid JSON.
    public static let invalidJSON = ErrorCode(rawValue: "invalidJSON")
    /// The JSON is valid but not in the expected shape.
    public static let unexpectedShape = ErrorCode(rawValue: "unexpectedShape")
    /// The input ended before it was complete.
    public static let truncated = ErrorCode(rawValue: "truncated")
    /// The content matches no format this reader knows.
    public static let unknownFormat = ErrorCode(rawValue: "unknownFormat")
    /// Compressed data is damaged.
    public static let corruptCompression = ErrorCode(rawValue: "corruptCompression")
    /// The input uses a compression this reader does not implement.
    public static let unsupportedCompression = ErrorCode(rawValue: "unsupportedCompression")
    /// Bytes follow the data that belong to no format (e.g. after a gzip stream); the
    /// data before them was read.
    public static let trailingData = ErrorCode(rawValue: "trailingData")
    /// Decompression would pass ``StatsReadLimits/maximumExpandedBytes``.
    public static let expandedSizeLimit = ErrorCode(rawValue: "expandedSizeLimit")
    /// A decompressed line would pass ``StatsReadLimits/maximumLineBytes``.
    public static let lineLengthLimit = ErrorCode(rawValue: "lineLengthLimit")
}
