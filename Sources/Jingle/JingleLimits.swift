/// Bounds on what one Jingle element or one SDP may hold, so that a hostile peer cannot make us
/// build (or hand Chromium) something unbounded. Over a limit is a ``JingleError`` with code
/// `limitExceeded`.
///
/// The defaults are well above what Chromium writes: its richest offer here (audio, simulcast
/// video, a data channel) has 3 m-lines, 23 payload types in one m-line, 14 header extensions,
/// a handful of candidates per interface.
public struct JingleLimits: Hashable, Sendable {
    /// Contents (m-lines) in one session.
    public var maximumContents: Int
    /// Candidates in one transport.
    public var maximumCandidates: Int
    /// Payload types in one RTP description (there are only 128 numbers).
    public var maximumPayloadTypes: Int
    /// Parameters (fmtp) and feedback entries (rtcp-fb), each, on one payload type.
    public var maximumParametersPerPayloadType: Int
    /// Header extensions in one RTP description.
    public var maximumHeaderExtensions: Int
    /// Sources (SSRCs), source groups and RIDs, each, in one RTP description.
    public var maximumSources: Int
    /// Bytes of one SDP text.
    public var maximumSDPBytes: Int

    /// Creates limits.
    public init(maximumContents: Int = 32, maximumCandidates: Int = 64, maximumPayloadTypes: Int = 128,
                maximumParametersPerPayloadType: Int = 32, maximumHeaderExtensions: Int = 32,
                maximumSources: Int = 64, maximumSDPBytes: Int = 256 << 10) {
        self.maximumContents = maximumContents
        self.maximumCandidates = maximumCandidates
        self.maximumPayloadTypes = maximumPayloadTypes
        self.maximumParametersPerPayloadType = maximumParametersPerPayloadType
        self.maximumHeaderExtensions = maximumHeaderExtensions
        self.maximumSources = maximumSources
        self.maximumSDPBytes = maximumSDPBytes
    }
}
