import Dispatch
import Foundation
import RTCStats

/// The stats of one publisher, for an app: feed it each `getStats()` result of the publisher's
/// peer connections; it calls ``delegate`` and yields to every ``events`` stream the same
/// callbacks, in the same order, from one list per report.
///
/// Nothing is computed while neither a delegate nor a stream is attached.
public final class PublisherStatsMonitor: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`; delegates and streams are called
    // after the lock is released.
    private let lock = NSLock()
    private var engine: CallStatsEngine
    private var rawReports: [String: StatsReport] = [:]
    private let fanOut = CallbackFanOut()
    private weak var storedDelegate: (any PublisherNetworkStatsDelegate)?
    private weak var storedReportDelegate: (any RtcStatsReportDelegate)?
    private let relayed: Bool

    private let settings: PublisherSettings
    private var storedSenderStatsSender: (@Sendable ([UInt8]) -> Void)?

    /// Creates a monitor. `relayed` for a peer-to-peer session (one connection per subscriber).
    public init(settings: PublisherSettings = .init(), configuration: StatsEngineConfiguration = .init(), relayed: Bool = false) {
        self.settings = settings
        self.relayed = relayed
        engine = CallStatsEngine(configuration: configuration, sessionModes: ["publisher": relayed ? .relayed : .routed])
    }

    /// With ``PublisherSettings/senderStatsTrack``, called once per report with the encoded
    /// sender-stats message (at most 1 KiB) to send to the subscribers over the publishing peer
    /// connection's data channel.
    public var senderStatsSender: (@Sendable ([UInt8]) -> Void)? {
        get { lock.withLock { storedSenderStatsSender } }
        set { lock.withLock { storedSenderStatsSender = newValue } }
    }

    /// The stats delegate (held weakly).
    public var delegate: (any PublisherNetworkStatsDelegate)? {
        get { lock.withLock { storedDelegate } }
        set { lock.withLock { storedDelegate = newValue } }
    }

    /// The raw-report delegate (held weakly).
    public var rtcStatsReportDelegate: (any RtcStatsReportDelegate)? {
        get { lock.withLock { storedReportDelegate } }
        set { lock.withLock { storedReportDelegate = newValue } }
    }

    /// Every callback, as an async sequence (a new stream per access).
    public var events: AsyncStream<StatsCallback> { fanOut.makeStream() }

    /// Feeds one report of the peer connection labelled `peerConnection` (relayed: the
    /// subscriber's connection id).
    public func ingest(_ report: StatsReport, peerConnection: String) {
        let listening = fanOut.isListening
        let (callbacks, delegate, senderStats) = lock.withLock { () -> ([StatsCallback], (any PublisherNetworkStatsDelegate)?, ([UInt8], @Sendable ([UInt8]) -> Void)?) in
            rawReports[peerConnection] = report
            let sending = settings.senderStatsTrack && storedSenderStatsSender != nil
            guard storedDelegate != nil || listening || sending else { return ([], nil, nil) }
            let sample = StatsSample(time: report.timestamp ?? 0, peer: "publisher", peerConnection: peerConnection, report: report)
            let callbacks = engine.ingest(sample)
            var outgoing: ([UInt8], @Sendable ([UInt8]) -> Void)?
            if sending, let message = engine.senderStatsMessage(forPeer: "publisher"), let send = storedSenderStatsSender {
                outgoing = (message.encoded(), send)
            }
            return (callbacks, storedDelegate, outgoing)
        }
        if let (bytes, send) = senderStats { send(bytes) }
        if let delegate {
            for callback in callbacks {
                switch callback.event {
                case .publisherVideoNetworkStatsUpdated(let stats): delegate.publisher(self, videoNetworkStatsUpdated: stats)
                case .publisherAudioNetworkStatsUpdated(let stats): delegate.publisher(self, audioNetworkStatsUpdated: stats)
                case .publisherMediaLinkStatsUpdated(let stats): delegate.publisher(self, mediaLinkStatsUpdated: stats)
                case .publisherVideoQualityChanged(let stats, let reason): delegate.publisher(self, videoQualityChanged: stats, reason: reason)
                case .publisherNetworkConditionChanged(let stats, let reason): delegate.publisher(self, networkConditionChanged: stats, reason: reason)
                default: break
                }
            }
        }
        fanOut.yield(callbacks)
    }

    /// The latest raw report of every peer connection, unprocessed.
    public func rtcStatsReport() -> [PublisherRtcStats] {
        lock.withLock {
            rawReports.keys.sorted().map { key in
                PublisherRtcStats(connectionId: relayed ? key : "", jsonArrayOfReports: rawReports[key]!.jsonArray())
            }
        }
    }

    /// Asks for the raw reports; ``rtcStatsReportDelegate`` receives them on `queue`.
    public func getRtcStatsReport(on queue: DispatchQueue = .global()) {
        let reports = rtcStatsReport()
        let delegate = rtcStatsReportDelegate
        queue.async { delegate?.publisher(self, rtcStatsReport: reports) }
    }
}

/// The stats of one subscribed stream, for an app: feed it each `getStats()` result of the
/// connection carrying the stream, and each sender-stats message received from its publisher.
public final class SubscriberStatsMonitor: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`; delegates and streams are called
    // after the lock is released.
    private let lock = NSLock()
    private var engine: CallStatsEngine
    private let streamID: String
    private var rawReport: StatsReport?
    private let fanOut = CallbackFanOut()
    private weak var storedDelegate: (any SubscriberNetworkStatsDelegate)?
    private weak var storedReportDelegate: (any RtcStatsReportDelegate)?

    /// Creates a monitor for the stream `streamID` (on an SFU connection carrying several
    /// streams, the id ``StreamDemultiplexer`` gives it; empty for a connection with one stream).
    public init(streamID: String = "", configuration: StatsEngineConfiguration = .init()) {
        self.streamID = streamID
        engine = CallStatsEngine(configuration: configuration)
    }

    /// The stats delegate (held weakly).
    public var delegate: (any SubscriberNetworkStatsDelegate)? {
        get { lock.withLock { storedDelegate } }
        set { lock.withLock { storedDelegate = newValue } }
    }

    /// The raw-report delegate (held weakly).
    public var rtcStatsReportDelegate: (any RtcStatsReportDelegate)? {
        get { lock.withLock { storedReportDelegate } }
        set { lock.withLock { storedReportDelegate = newValue } }
    }

    /// Every callback of this stream, as an async sequence (a new stream per access).
    public var events: AsyncStream<StatsCallback> { fanOut.makeStream() }

    /// Feeds a sender-stats message received from the publisher over the data channel, at
    /// `time` (ms, the clock of the reports). Bad messages are dropped and counted.
    public func receiveSenderStats(_ bytes: [UInt8], at time: Double) {
        lock.withLock { engine.receiveSenderStats(bytes, peer: "subscriber", at: time) }
    }

    /// Sender-stats messages accepted and dropped so far.
    public var senderStatsCounts: (accepted: Int, dropped: Int) {
        lock.withLock { engine.senderStatsCounts(peer: "subscriber") }
    }

    /// Feeds one report of the connection labelled `peerConnection`.
    public func ingest(_ report: StatsReport, peerConnection: String) {
        let listening = fanOut.isListening
        let (callbacks, delegate) = lock.withLock { () -> ([StatsCallback], (any SubscriberNetworkStatsDelegate)?) in
            rawReport = report
            guard storedDelegate != nil || listening else { return ([], nil) }
            let sample = StatsSample(time: report.timestamp ?? 0, peer: "subscriber", peerConnection: peerConnection, report: report)
            let all = engine.ingest(sample)
            let target = all.contains { $0.stream == streamID } ? streamID : (streamID.isEmpty ? all.first?.stream : nil)
            return (all.filter { $0.stream == target }, storedDelegate)
        }
        if let delegate {
            for callback in callbacks {
                switch callback.event {
                case .subscriberVideoNetworkStatsUpdated(let stats): delegate.subscriber(self, videoNetworkStatsUpdated: stats)
                case .subscriberAudioNetworkStatsUpdated(let stats): delegate.subscriber(self, audioNetworkStatsUpdated: stats)
                case .subscriberMediaLinkStatsUpdated(let stats): delegate.subscriber(self, mediaLinkStatsUpdated: stats)
                case .subscriberVideoQualityChanged(let stats, let reason): delegate.subscriber(self, videoQualityChanged: stats, reason: reason)
                case .subscriberNetworkConditionChanged(let stats, let reason): delegate.subscriber(self, networkConditionChanged: stats, reason: reason)
                case .participantConnectionQualityChanged(let quality): delegate.subscriber(self, didUpdateConnectionQuality: quality)
                default: break
                }
            }
        }
        fanOut.yield(callbacks)
    }

    /// The latest raw report, unprocessed, as a JSON array (`"[]"` before the first).
    public func rtcStatsReport() -> String {
        lock.withLock { rawReport?.jsonArray() ?? "[]" }
    }

    /// Asks for the raw report; ``rtcStatsReportDelegate`` receives it on `queue`.
    public func getRtcStatsReport(on queue: DispatchQueue = .global()) {
        let report = rtcStatsReport()
        let delegate = rtcStatsReportDelegate
        queue.async { delegate?.subscriber(self, rtcStatsReport: report) }
    }
}
