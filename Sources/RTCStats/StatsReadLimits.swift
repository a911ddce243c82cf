/// Bounds on what reading one input may cost, so a hostile or broken file (a gzip bomb, a
/// line without end) stops with a clear error instead of exhausting memory.
public struct StatsReadLimits: Sendable, Hashable {
    /// The most bytes decompression may produce (all gzip members together).
    public var maximumExpandedBytes: Int
    /// The longest line decompression may produce. A webrtc-internals dump is one JSON
    /// document, often on one line, so this bounds its size as well.
    public var maximumLineBytes: Int

    /// Creates limits.
    public init(maximumExpandedBytes: Int = StatsReadLimits.default.maximumExpandedBytes, maximumLineBytes: Int = StatsReadLimits.default.maximumLineBytes) {
        self.maximumExpandedBytes = maximumExpandedBytes
        self.maximumLineBytes = maximumLineBytes
    }

    private init(expanded: Int, line: Int) {
        maximumExpandedBytes = expanded
        maximumLineBytes = line
    }

    /// 256 MiB expanded (an hour-long two-peer recording is about 65 MB), 64 MiB per line
    /// (the largest real webrtc-internals dump we have seen is 3 MB).
    public static let `default` = StatsReadLimits(expanded: 256 << 20, line: 64 << 20)

    /// No limit (for inputs already trusted, such as video clips of known size).
    public static let unlimited = StatsReadLimits(expanded: .max, line: .max)
}
