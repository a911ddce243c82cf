/// The RTP description of an audio or video content (XEP-0167), with its feedback (XEP-0293),
/// header extensions (XEP-0294), sources and source groups (XEP-0339), and what Chromium's
/// SDP has beyond those XEPs (RIDs and simulcast, the media-level msid, reduced-size RTCP).
public struct JingleRTPDescription: Hashable, Sendable {
    /// `audio` or `video`.
    public var media: String
    /// The payload types, in preference order.
    public var payloadTypes: [JinglePayloadType]
    /// Feedback for every payload type (`a=rtcp-fb:*`).
    public var feedback: [JingleRTCPFeedback]
    /// The header extensions (`a=extmap`).
    public var headerExtensions: [JingleHeaderExtension]
    /// One- and two-byte header extensions may be mixed (`a=extmap-allow-mixed`, XEP-0294 §3).
    public var allowsMixedHeaderExtensions: Bool
    /// RTP and RTCP share one port (`a=rtcp-mux`, XEP-0167 §6.2).
    public var rtcpMux: Bool
    /// Reduced-size RTCP (`a=rtcp-rsize`, RFC 5506).
    public var reducedSizeRTCP: Bool
    /// The sources the sender of this description sends (`a=ssrc`), XEP-0339.
    public var sources: [JingleSource]
    /// Their groups (`a=ssrc-group`: FID pairs a source with its retransmission source, SIM
    /// lists simulcast layers), XEP-0339.
    public var sourceGroups: [JingleSourceGroup]
    /// The media-level stream and track id (`a=msid:STREAM TRACK`), also when there is no SSRC
    /// (simulcast by RID).
    public var streamID: String?
    /// The RTP stream ids (`a=rid`), RFC 8851.
    public var rids: [JingleRID]
    /// The simulcast description (`a=simulcast`), RFC 8853.
    public var simulcast: JingleSimulcast?
    /// Media-level SDP attributes no XEP and no field here carries, kept verbatim in order
    /// (`rtcp-xr:rcvr-rtt=all`, `ptime:20`), so that nothing Chromium wrote is lost between two
    /// CallScope peers.
    public var otherAttributes: [String]

    /// Creates a description.
    public init(media: String, payloadTypes: [JinglePayloadType] = [], feedback: [JingleRTCPFeedback] = [],
                headerExtensions: [JingleHeaderExtension] = [], allowsMixedHeaderExtensions: Bool = false,
                rtcpMux: Bool = true, reducedSizeRTCP: Bool = false, sources: [JingleSource] = [],
                sourceGroups: [JingleSourceGroup] = [], streamID: String? = nil, rids: [JingleRID] = [],
                simulcast: JingleSimulcast? = nil, otherAttributes: [String] = []) {
        self.media = media
        self.payloadTypes = payloadTypes
        self.feedback = feedback
        self.headerExtensions = headerExtensions
        self.allowsMixedHeaderExtensions = allowsMixedHeaderExtensions
        self.rtcpMux = rtcpMux
        self.reducedSizeRTCP = reducedSizeRTCP
        self.sources = sources
        self.sourceGroups = sourceGroups
        self.streamID = streamID
        self.rids = rids
        self.simulcast = simulcast
        self.otherAttributes = otherAttributes
    }
}

/// One payload type (XEP-0167 `<payload-type/>`; `a=rtpmap`, `a=fmtp`, `a=rtcp-fb`).
public struct JinglePayloadType: Hashable, Sendable {
    /// The number, 0...127.
    public var id: UInt8
    /// The encoding name (`opus`, `VP8`, `rtx`); empty for a static type without `a=rtpmap`.
    public var name: String
    /// The clock rate in Hz.
    public var clockRate: UInt32?
    /// The channels (audio), when given.
    public var channels: UInt8?
    /// The format parameters (`a=fmtp`), in order.
    public var parameters: [JingleParameter]
    /// The feedback for this type (`a=rtcp-fb:ID`), XEP-0293.
    public var feedback: [JingleRTCPFeedback]

    /// Creates a payload type.
    public init(id: UInt8, name: String, clockRate: UInt32? = nil, channels: UInt8? = nil,
                parameters: [JingleParameter] = [], feedback: [JingleRTCPFeedback] = []) {
        self.id = id
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.parameters = parameters
        self.feedback = feedback
    }
}

/// A name and a value (a format parameter, a source parameter). A format parameter without
/// `=` (RED's `111/111`) has an empty name.
public struct JingleParameter: Hashable, Sendable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String

    /// Creates a parameter.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// One RTCP feedback type (XEP-0293 `<rtcp-fb/>`; `a=rtcp-fb`): `nack`, `nack pli`,
/// `ccm fir`, `goog-remb`, `transport-cc`.
public struct JingleRTCPFeedback: Hashable, Sendable {
    /// The type (`nack`).
    public var type: String
    /// The subtype (`pli`), when any.
    public var subtype: String?

    /// Creates a feedback entry.
    public init(type: String, subtype: String? = nil) {
        self.type = type
        self.subtype = subtype
    }
}

/// One RTP header extension (XEP-0294 `<rtp-hdrext/>`; `a=extmap`).
public struct JingleHeaderExtension: Hashable, Sendable {
    /// The local id, 1...255 (1...14 for one-byte headers).
    public var id: UInt8
    /// The URI.
    public var uri: String
    /// Who sends it (`a=extmap:ID/sendonly` and the like); `both` when not said.
    public var senders: JingleSenders

    /// Creates a header extension.
    public init(id: UInt8, uri: String, senders: JingleSenders = .both) {
        self.id = id
        self.uri = uri
        self.senders = senders
    }
}

/// One RTP source (XEP-0339 `<source/>`; `a=ssrc`) with its parameters (`cname`, `msid`).
public struct JingleSource: Hashable, Sendable {
    /// The SSRC.
    public var ssrc: UInt32
    /// The parameters, in order.
    public var parameters: [JingleParameter]

    /// Creates a source.
    public init(ssrc: UInt32, parameters: [JingleParameter] = []) {
        self.ssrc = ssrc
        self.parameters = parameters
    }
}

/// A group of sources (XEP-0339 `<ssrc-group/>`; `a=ssrc-group`): `FID` (a source and its
/// retransmission source), `SIM` (simulcast layers, lowest first), `FEC-FR`.
public struct JingleSourceGroup: Hashable, Sendable {
    /// The semantics.
    public var semantics: String
    /// The SSRCs, in order.
    public var ssrcs: [UInt32]

    /// Creates a group.
    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }
}

/// An RTP stream id (RFC 8851 `a=rid:ID send|recv [restrictions]`).
public struct JingleRID: Hashable, Sendable {
    /// Whether the stream is sent or received by the writer of the description.
    public enum Direction: String, Hashable, Sendable {
        /// Sent.
        case send
        /// Received.
        case recv
    }

    /// The id (`q`, `h`, `f`).
    public var id: String
    /// The direction.
    public var direction: Direction
    /// The restrictions after the direction (`pt=96;max-width=1280`), verbatim; empty when none.
    public var restrictions: String

    /// Creates a RID.
    public init(id: String, direction: Direction, restrictions: String = "") {
        self.id = id
        self.direction = direction
        self.restrictions = restrictions
    }
}

/// A simulcast description (RFC 8853 `a=simulcast:send q;h;f`): the RID alternatives sent and
/// received by the writer of the description, verbatim per direction.
public struct JingleSimulcast: Hashable, Sendable {
    /// The send list (`q;h;f`, `~` marks a paused stream), when any.
    public var send: String?
    /// The receive list, when any.
    public var receive: String?

    /// Creates a simulcast description.
    public init(send: String? = nil, receive: String? = nil) {
        self.send = send
        self.receive = receive
    }
}
