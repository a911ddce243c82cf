import Dispatch
import Foundation
import RTCStats

/// The stats of one publisher, for an app: feed it each `getStats()` result of the publisher's
/// peer connections; it calls ``delegate`` and yields to every ``events`` stream, in the same
/// order, from one list of callbacks per report.
///
/// Nothing is computed while neither a delegate nor a stream is attached.
public final class PublisherStatsMonitor: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`; delegates and continuations
    // are called after the lock is released.
    private let lock = NSLock()
    private var engine: CallStatsEngine
    private var rawReports: [String: StatsReport] = [:]
    private var continuations: [UUID: AsyncStream<StatsCallback>.Continuation] = [:]
    private weak var storedDelegate: (any PublisherNetworkStatsDelegate)?
    private weak var storedReportDelegate: (any RtcStatsReportDelegate)?
    private let relayed: Bool

    /// Creates a monitor. `relayed` for a peer-to-peer session (one connection per subscriber).
    public init(configuration: StatsEngineConfiguration = .init(), relayed: Bool = false) {
        self.relayed = relayed
        engine = CallStatsEngine(configuration: configuration, sessionModes: ["publisher": relayed ? .relayed : .routed])
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
    public var events: AsyncStream<StatsCallback> {
        let (stream, continuation) = AsyncStream<StatsCallback>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        lock.withLock { continuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Feeds one report of the peer connection labelled `peerConnection` (relayed: the
    /// subscriber's connection id).
    public func ingest(_ report: StatsReport, peerConnection: String) {
        let (callbacks, delegate, streams) = lock.withLock { () -> ([StatsCallback], (any PublisherNetworkStatsDelegate)?, [AsyncStream<StatsCallback>.Continuation]) in
            rawReports[peerConnection] = report
            guard storedDelegate != nil || !continuations.isEmpty else { return ([], nil, []) }
            let sample = StatsSample(time: report.timestamp ?? 0, peer: "publisher", peerConnection: peerConnection, report: report)
            return (engine.ingest(sample), storedDelegate, Array(continuations.values))
        }
        for callback in callbacks {
            if let delegate {
                switch callback.event {
                case .publisherVideoNetworkStatsUpdated(let stats): delegate.publisher(self, videoNetworkStatsUpdated: stats)
                case .publisherAudioNetworkStatsUpdated(let stats): delegate.publisher(self, audioNetworkStatsUpdated: stats)
                case .publisherMediaLinkStatsUpdated(let stats): delegate.publisher(self, mediaLinkStatsUpdated: stats)
                default: break
                }
            }
            for continuation in streams { continuation.yield(callback) }
        }
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

/// The stats of one subscriber, for an app: feed it each `getStats()` result of the connection
/// carrying the subscribed stream.
public final class SubscriberStatsMonitor: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`; delegates and continuations
    // are called after the lock is released.
    private let lock = NSLock()
    private var tracker: SubscriberStreamTracker
    private let streamID: String
    private var rawReport: StatsReport?
    private var continuations: [UUID: AsyncStream<StatsCallback>.Continuation] = [:]
    private weak var storedDelegate: (any SubscriberNetworkStatsDelegate)?
    private weak var storedReportDelegate: (any RtcStatsReportDelegate)?
    private var downlinkEstimator = DownlinkEstimator()
    private let configuration: StatsEngineConfiguration

    /// Creates a monitor for the stream `streamID` (on an SFU connection carrying several
    /// streams, the id ``StreamDemultiplexer`` gives it; empty for a connection with one stream).
    public init(streamID: String = "", configuration: StatsEngineConfiguration = .init()) {
        self.streamID = streamID
        self.configuration = configuration
        tracker = SubscriberStreamTracker(configuration: configuration)
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

    /// Every callback, as an async sequence (a new stream per access).
    public var events: AsyncStream<StatsCallback> {
        let (stream, continuation) = AsyncStream<StatsCallback>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        lock.withLock { continuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Feeds one report of the connection labelled `peerConnection`.
    public func ingest(_ report: StatsReport, peerConnection: String) {
        let (callbacks, delegate, streams) = lock.withLock { () -> ([StatsCallback], (any SubscriberNetworkStatsDelegate)?, [AsyncStream<StatsCallback>.Continuation]) in
            rawReport = report
            guard storedDelegate != nil || !continuations.isEmpty else { return ([], nil, []) }
            let streams = StreamDemultiplexer.streams(in: report, defaultStreamID: "")
            guard let entries = streams.first(where: { $0.id == streamID })?.entries ?? (streamID.isEmpty ? streams.first?.entries : nil) else { return ([], nil, []) }
            let downlink = downlinkEstimator.transport(of: report, maximumGap: configuration.maximumRateGapMilliseconds)
            guard let update = tracker.ingest(entries, in: report, peerConnection: peerConnection, downlink: downlink) else { return ([], nil, []) }
            let time = report.timestamp ?? 0
            var callbacks: [StatsCallback] = []
            func add(_ event: StatsEvent) { callbacks.append(StatsCallback(time: time, peer: "subscriber", peerConnection: peerConnection, stream: streamID, event: event)) }
            if let video = update.video { add(.subscriberVideoNetworkStatsUpdated(video)) }
            if let audio = update.audio { add(.subscriberAudioNetworkStatsUpdated(audio)) }
            add(.subscriberMediaLinkStatsUpdated(update.mediaLink))
            return (callbacks, storedDelegate, Array(continuations.values))
        }
        for callback in callbacks {
            if let delegate {
                switch callback.event {
                case .subscriberVideoNetworkStatsUpdated(let stats): delegate.subscriber(self, videoNetworkStatsUpdated: stats)
                case .subscriberAudioNetworkStatsUpdated(let stats): delegate.subscriber(self, audioNetworkStatsUpdated: stats)
                case .subscriberMediaLinkStatsUpdated(let stats): delegate.subscriber(self, mediaLinkStatsUpdated: stats)
                default: break
                }
            }
            for continuation in streams { continuation.yield(callback) }
        }
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
