import Dispatch
import Foundation
import RTCStats

/// The stats of one publisher, for an app: feed it each `getStats()` result of the publisher's
/// peer connections; it calls ``delegate`` and yields to every ``events`` stream the same
/// callbacks, in the same order, from one list per report.
///
/// Nothing is computed while neither a delegate, a stream nor a sender-stats sender is attached.
public final class PublisherStatsMonitor: @unchecked Sendable {
    // @unchecked: `core` is thread-safe; `rawReports`, `relayedConnections`, `pathWatch`, `freshReports` and `storedSenderStatsSender` are only
    // touched inside `core.withEngine` / `core.process`, under its lock.
    private let core: MonitorCore<any PublisherNetworkStatsDelegate>
    private var rawReports: [String: StatsReport] = [:]
    /// The subscriber connection each relayed peer connection reaches (``relay(_:toConnection:subscriber:)``).
    private var relayedConnections: [String: String] = [:]
    private let relayed: Bool
    /// Whether it makes sender-stats messages, and what they say of audio fallback.
    private let senderStatsTrack: Bool
    private let audioFallbackEnabled: Bool
    private let publisherID: PublisherID?
    private var storedSenderStatsSender: (@Sendable ([UInt8]) -> Void)?
    private var storedSenderStatsPaths: [SenderStatsMessage.Path]?
    private var pathWatch = ConnectionPathWatch()
    private var freshReports: FreshReportSource?
    private static let endpoint = EndpointID("publisher")

    /// Creates a monitor. `senderStatsTrack`: make a sender-stats message each report, for the
    /// subscribers to tell their own network's problems from the publisher's (default `false`);
    /// `audioFallbackEnabled`: the messages allow subscribers to drop this publisher's video and
    /// keep its audio when their network cannot carry even the lowest layer (default `true`).
    /// `relayed` for a peer-to-peer session (one connection per subscriber); `publisherID` names
    /// this publisher in its sender-stats messages (needed when subscribers receive several
    /// publishers' messages on one channel).
    public init(senderStatsTrack: Bool = false, audioFallbackEnabled: Bool = true, configuration: StatsEngineConfiguration = .init(),
                relayed: Bool = false, publisherID: PublisherID? = nil) {
        self.senderStatsTrack = senderStatsTrack
        self.audioFallbackEnabled = audioFallbackEnabled
        self.relayed = relayed
        self.publisherID = publisherID
        core = MonitorCore(engine: CallStatsEngine(configuration: configuration, sessionModes: [Self.endpoint: relayed ? .relayed : .routed]))
    }

    /// With `senderStatsTrack`, called once per report with the encoded
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
    public func ingest(_ report: StatsReport, peerConnection: PeerConnectionID) {
        var outgoing: (message: SenderStatsMessage, send: @Sendable ([UInt8]) -> Void)?
        process(report, peerConnection: peerConnection.rawValue, wantsMessage: senderStatsTrack && storedSenderStatsSender != nil) { message in
            if let send = storedSenderStatsSender, var message {
                message.paths = storedSenderStatsPaths.map { given in SenderStatsMessage.Path.allCases.filter(given.contains) }
                outgoing = (message, send)
            }
        }
        if let outgoing { outgoing.send(outgoing.message.encoded()) }
    }

    /// Feeds one report of `peerConnection` like ``ingest(_:peerConnection:)`` and reads what a
    /// call needs from it: the connection's progress and paths, and, with
    /// `senderStatsTrack`, the sender-stats message, carrying those paths,
    /// for the call to complete and encode once.
    package func read(_ report: StatsReport, peerConnection: PeerConnectionID) -> PublisherReading {
        var reading: PublisherReading?
        process(report, peerConnection: peerConnection.rawValue, wantsMessage: senderStatsTrack) { message in
            let connection = pathWatch.read(report, of: peerConnection)
            var message = message
            message?.paths = connection.paths.senderStatsPaths
            reading = PublisherReading(connection: connection, senderStats: message)
        }
        return reading ?? PublisherReading(connection: core.withEngine { _ in pathWatch.read(report, of: peerConnection) }, senderStats: nil)
    }

    /// Between stats samples: the connection's progress and paths from `report`, without
    /// feeding the engine.
    package func readConnection(_ report: StatsReport, peerConnection: PeerConnectionID) -> ConnectionReading {
        core.withEngine { _ in pathWatch.read(report, of: peerConnection) }
    }

    /// Ingests `report` under the lock (when anyone listens or a message is wanted) and hands
    /// `take` this report's sender-stats message (`nil` when none is wanted or ready), still
    /// under the lock; then delivers the callbacks.
    private func process(_ report: StatsReport, peerConnection: String, wantsMessage: Bool, take: (SenderStatsMessage?) -> Void) {
        core.process({ engine, listening in
            rawReports[peerConnection] = report
            guard listening || wantsMessage else { return [] }
            let sample = StatsSample(time: report.timestamp ?? 0, peer: Self.endpoint.rawValue, peerConnection: peerConnection, report: report)
            let callbacks = engine.ingest(sample)
            var message = wantsMessage ? engine.senderStatsMessage(for: Self.endpoint, publisher: publisherID) : nil
            message?.audioFallbackEnabled = audioFallbackEnabled
            take(message)
            return callbacks
        }, dispatch: { delegate, callback in callback.deliver(to: .publisher(delegate, self)) })
    }

    /// The latest raw report of every peer connection, unprocessed.
    public func rtcStatsReport() -> [PublisherRtcStats] {
        core.withEngine { _ in
            rawReports.keys.sorted().compactMap { key in
                rawReports[key].map { PublisherRtcStats(connectionId: relayedConnections[key] ?? (relayed ? key : ""), jsonArrayOfReports: $0.jsonArray()) }
            }
        }
    }

    /// Asks for the raw reports; ``rtcStatsReportDelegate`` receives them on `queue`. While a
    /// call publishes through it (a `CallPublisher`'s monitor), its connection's report is a
    /// fresh one, a new `getStats()`; otherwise the latest ones fed.
    public func getRtcStatsReport(on queue: DispatchQueue = .global()) {
        let source = core.withEngine { _ in freshReports }
        Task {
            if let fresh = await source?() { core.withEngine { _ in rawReports[fresh.peerConnection.rawValue] = fresh.report } }
            let reports = rtcStatsReport()
            let delegate = rtcStatsReportDelegate
            queue.async { delegate?.publisher(self, rtcStatsReport: reports) }
        }
    }

    /// Where ``getRtcStatsReport(on:)`` takes a fresh report from (`nil`: the latest fed).
    package func setFreshReportSource(_ source: FreshReportSource?) {
        core.withEngine { _ in freshReports = source }
    }

    /// A relayed call's publication on `peerConnection` reaches one subscriber: from the next
    /// report on, the stats arrays name it (`connectionId`, `subscriberId`) in one element of
    /// their own, as a relayed publisher's do, instead of the routed element with empty ids.
    package func relay(_ peerConnection: PeerConnectionID, toConnection connectionId: String, subscriber subscriberId: String) {
        core.withEngine { engine in
            engine.nameRelayedLink(endpoint: Self.endpoint, peerConnection: peerConnection.rawValue, connectionId: connectionId, subscriberId: subscriberId)
            relayedConnections[peerConnection.rawValue] = connectionId
        }
    }

    /// A relayed publication's link on `peerConnection` ended (its subscriber left): from the
    /// next report of another link on, the stats arrays hold no element for it, and its raw
    /// report is no longer listed.
    package func endRelay(_ peerConnection: PeerConnectionID) {
        core.withEngine { engine in
            engine.forgetRelayedLink(endpoint: Self.endpoint, peerConnection: peerConnection.rawValue)
            rawReports[peerConnection.rawValue] = nil
            relayedConnections[peerConnection.rawValue] = nil
        }
    }

    /// Drops what it kept of a peer connection that is gone (a republish replaced it): its
    /// raw report is no longer listed.
    package func forget(peerConnection: PeerConnectionID) {
        core.withEngine { _ in rawReports[peerConnection.rawValue] = nil }
    }
}

/// What a call needs from one report of its publishing peer connection.
package struct PublisherReading: Sendable {
    /// The selected pair's progress (the router's RTCP and consent responses) and the paths.
    package var connection: ConnectionReading
    /// This report's sender-stats message, its paths set, not yet encoded; `nil` without
    /// `senderStatsTrack` or before the engine has one.
    package var senderStats: SenderStatsMessage?
}

/// A fresh report of a peer connection, on demand (a new `getStats()`); `nil` when it cannot
/// be had (the connection closed).
package typealias FreshReportSource = @Sendable () async -> (peerConnection: PeerConnectionID, report: StatsReport)?
