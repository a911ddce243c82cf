/// Why a frame, a conversion or a frame file was rejected, with the offending values.
///
/// A struct over a code so that new cases can be added without breaking callers.
public struct VideoFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public var rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Width or height is zero, negative or larger than ``VideoFrame/maximumDimension``.
        public static let invalidDimensions = Code(rawValue: "invalidDimensions")
        /// A plane's stride is smaller than its row or negative.
        public static let strideTooSmall = Code(rawValue: "strideTooSmall")
        /// A plane holds fewer bytes than its rows need.
        public static let planeTooShort = Code(rawValue: "planeTooShort")
        /// The number of planes does not match the format.
        public static let wrongPlaneCount = Code(rawValue: "wrongPlaneCount")
        /// Source and destination differ in size.
        public static let sizeMismatch = Code(rawValue: "sizeMismatch")
        /// No converter exists between these formats.
        public static let unsupportedConversion = Code(rawValue: "unsupportedConversion")
        /// The file is not a YUV4MPEG2 stream or its header is malformed.
        public static let invalidHeader = Code(rawValue: "invalidHeader")
        /// The stream is valid but uses a layout this reader does not convert (4:2:2, 10-bit, ...).
        public static let unsupportedLayout = Code(rawValue: "unsupportedLayout")
        /// The stream ended inside a frame.
        public static let truncated = Code(rawValue: "truncated")
        /// Reading or writing the underlying file failed.
        public static let io = Code(rawValue: "io")
        /// A platform framework call (CoreVideo, CoreMedia) returned an error status.
        public static let platformFailure = Code(rawValue: "platformFailure")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What was wrong, with the values involved, and what was expected.
    public var message: String
    /// The plane concerned, when one is.
    public var plane: Int?
    /// The 0-based frame of a stream concerned, when one is.
    public var frameIndex: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, plane: Int? = nil, frameIndex: Int? = nil) {
        self.code = code
        self.message = message
        self.plane = plane
        self.frameIndex = frameIndex
    }

    /// The message, prefixed with the frame and plane concerned.
    public var description: String {
        var prefix = ""
        if let frameIndex { prefix += "frame \(frameIndex): " }
        if let plane { prefix += "plane \(plane): " }
        return prefix + message
    }
}
