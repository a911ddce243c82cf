import Dispatch
import Foundation
import RTCStats

/// The stats of one publisher, for an app: feed it each `getStats()` result of the publisher's
/// peer connections; it calls ``delegate`` and yields to every ``events`` stream the same
/// callbacks, in the same order, from one list per report.
///
/// Nothing is computed while neither a delegate, a stream nor a sender-stats sender is attached.
public final class PublisherStatsMonitor: @unchecked Sendable {
    // @unchecked: `core` is thread-safe; `rawReports` and `storedSenderStatsSender` are only
    // touched inside `core.withEngine` / `core.process`, under its lock.
    private let core: MonitorCore<any PublisherNetworkStatsDelegate>
    private var rawReports: [String: StatsReport] = [:]
    private let relayed: Bool
    private let settings: PublisherSettings
    private let publisherID: PublisherID?
    private var storedSenderStatsSender: (@Sendable ([UInt8]) -> Void)?
    private var storedSenderStatsPaths: [SenderStatsMessage.Path]?
    private static let endpoint = EndpointID("publisher")

    /// Creates a monitor. `relayed` for a peer-to-peer session (one connection per subscriber);
    /// `publisherID` names this publisher in its sender-stats messages (needed when subscribers
    /// receive several publishers' messages on one channel).
    public init(settings: PublisherSettings = .init(), configuration: StatsEngineConfiguration = .init(), relayed: Bool = false, publisherID: PublisherID? = nil) {
        self.settings = settings
        self.relayed = relayed
        self.publisherID = publisherID
        core = MonitorCore(engine: CallStatsEngine(configuration: configuration, sessionModes: [Self.endpoint: relayed ? .relayed : .routed]))
    }

    /// With ``PublisherSettings/senderStatsTrack``, called once per report with the encoded
    /// sender-stats message (at most 1 KiB) to send to the subscribers over the publishing peer
    /// connection's data channel.
    public var senderStatsSender: (@Sendable ([UInt8]) -> Void)? {
        get { core.withEngine { _ in storedSenderStatsSender } }
        set { core.withEngine { _ in storedSenderStatsSender = newValue } }
    }

    /// This publisher's working paths to the router (from its publishing connection's candidate
    /// pairs), put into every sender-stats message from the next report on (wire version 3);
    /// `nil` (the default) sends none.
    public var senderStatsPaths: [SenderStatsMessage.Path]? {
        get { core.withEngine { _ in storedSenderStatsPaths } }
        set { core.withEngine { _ in storedSenderStatsPaths = newValue } }
    }

    /// The stats delegate (held weakly).
    public var delegate: (any PublisherNetworkStatsDelegate)? { get { core.delegate } set { core.delegate = newValue } }
    /// The raw-report delegate (held weakly).
    public var rtcStatsReportDelegate: (any RtcStatsReportDelegate)? { get { core.reportDelegate } set { core.reportDelegate = newValue } }

    /// Every callback, as an async sequence (a new stream per access).
    public var events: AsyncStream<StatsCallback> { core.makeStream() }

    /// Feeds one report of the peer connection labelled `peerConnection` (relayed: the
    /// subscriber's connection id).
    public func ingest(_ report: StatsReport, peerConnection: String) {
        var outgoing: (bytes: [UInt8], send: @Sendable ([UInt8]) -> Void)?
        core.process({ engine, listening in
            rawReports[peerConnection] = report
            let sender = settings.senderStatsTrack ? storedSenderStatsSender : nil
            guard listening || sender != nil else { return [] }
            let sample = StatsSample(time: report.timestamp ?? 0, peer: Self.endpoint.rawValue, peerConnection: peerConnection, report: report)
            let callbacks = engine.ingest(sample)
            if let sender, var message = engine.senderStatsMessage(for: Self.endpoint, publisher: publisherID) {
                message.audioFallbackEnabled = settings.audioFallbackEnabled
                message.paths = storedSenderStatsPaths.map { given in SenderStatsMessage.Path.allCases.filter(given.contains) }
                outgoing = (message.encoded(), sender)
            }
            return callbacks
        }, dispatch: { delegate, callback in callback.deliver(to: .publisher(delegate, self)) })
        if let outgoing { outgoing.send(outgoing.bytes) }
    }

    /// The latest raw report of every peer connection, unprocessed.
    public func rtcStatsReport() -> [PublisherRtcStats] {
        core.withEngine { _ in
            rawReports.keys.sorted().compactMap { key in
                rawReports[key].map { PublisherRtcStats(connectionId: relayed ? key : "", jsonArrayOfReports: $0.jsonArray()) }
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
