import CallScopeCore
import Dispatch
import Foundation
import RTCStats

/// The stats of one subscribed stream, for an app: feed it each `getStats()` result of the
/// connection carrying the stream, and each sender-stats message received from its publisher.
public final class SubscriberStatsMonitor: @unchecked Sendable {
    // @unchecked: `core` is thread-safe; `rawReport` and `pathWatch` are only touched inside `core.withEngine` /
    // `core.process`, under its lock.
    let core: MonitorCore<any SubscriberNetworkStatsDelegate>
    let binding: StreamBinding
    private var rawReport: StatsReport?
    /// The paths of the connection's reports (under `core`'s lock, like `rawReport`).
    var pathWatch = ConnectionPathWatch()
    /// Where a fresh report comes from while a call samples this stream (under `core`'s lock).
    private var freshReports: FreshReportSource?
    /// Relayed: the links of the device's other subscribed streams (under `core`'s lock).
    private var relayedLinks: RelayedLinkBoard?
    /// The latest video and audio stats delivered, for the condition change's other form.
    private let conditionChangeStats = Locked(ConditionChangeStats())
    static let endpoint = EndpointID("subscriber")

    /// Creates a monitor for the stream `stream` from `publisher`. On a connection carrying
    /// several streams (an SFU multistream connection), `mids` lists this stream's receivers;
    /// empty when the connection carries this stream only.
    public init(stream: StreamID = .sole, publisher: PublisherID = .unnamed, mids: [String] = [], configuration: StatsEngineConfiguration = .init()) {
        binding = StreamBinding(stream: stream, publisher: publisher, mids: mids)
        core = MonitorCore(engine: CallStatsEngine(configuration: configuration))
    }

    /// The stats delegate (held weakly).
    public var delegate: (any SubscriberNetworkStatsDelegate)? { get { core.delegate } set { core.delegate = newValue } }
    /// The raw-report delegate (held weakly).
    public var rtcStatsReportDelegate: (any RtcStatsReportDelegate)? { get { core.reportDelegate } set { core.reportDelegate = newValue } }

    /// Every callback of this stream, as an async sequence (a new stream per access).
    public var events: AsyncStream<StatsCallback> { core.makeStream() }

    /// Feeds a sender-stats message received from this stream's publisher over the data
    /// channel, at `time` (ms, the clock of the reports: the latest report's `timestamp`, not
    /// the wall clock). Bad messages are dropped and counted.
    public func receiveSenderStats(_ bytes: [UInt8], at time: Double) {
        core.withEngine { $0.receiveSenderStats(bytes, endpoint: Self.endpoint, publisher: binding.publisher, at: time) }
    }

    /// The latest sender-stats message accepted from this stream's publisher (`nil` before the
    /// first): what it last said of its own uplink, its paths to the router included.
    public var latestSenderStats: SenderStatsMessage? {
        core.withEngine { $0.latestSenderStats(endpoint: Self.endpoint, publisher: binding.publisher) }
    }

    /// Sender-stats messages accepted and dropped so far.
    public var senderStatsCounts: SenderStatsCounts {
        core.withEngine { $0.senderStatsCounts(endpoint: Self.endpoint) }
    }

    /// Feeds one report of the connection labelled `peerConnection`.
    public func ingest(_ report: StatsReport, peerConnection: PeerConnectionID) {
        ingest(report, peerConnection: peerConnection, whenUnheard: false)
    }

    /// Feeds one report and returns its callbacks; computes them even when nobody listens when
    /// `whenUnheard` (the SDK's layer policy reads them every interval).
    @discardableResult
    func ingest(_ report: StatsReport, peerConnection: PeerConnectionID, whenUnheard: Bool) -> [StatsCallback] {
        core.process({ engine, listening in
            rawReport = report
            guard listening || whenUnheard else { return [] }
            let sample = StatsSample(time: report.timestamp ?? 0, peer: Self.endpoint.rawValue, peerConnection: peerConnection.rawValue, report: report)
            guard let board = relayedLinks else { return engine.ingest(sample, streams: [binding]).filter { $0.stream == binding.stream } }
            for (other, link) in board.links(except: peerConnection.rawValue) {
                engine.noteRelayedLink(condition: link.condition, reason: link.reason, endpoint: Self.endpoint, peerConnection: other, at: link.time)
            }
            let callbacks = engine.ingest(sample, streams: [binding]).filter { $0.stream == binding.stream }
            if let own = engine.relayedLink(endpoint: Self.endpoint, peerConnection: peerConnection.rawValue) {
                board.post(.init(condition: own.condition, reason: own.reason, time: own.time), peerConnection: peerConnection.rawValue)
            }
            return callbacks
        }, dispatch: { delegate, callback in
            callback.deliver(to: .subscriber(delegate, self))
            if let change = conditionChangeStats.withLock({ $0.note(callback.event) }) {
                delegate.subscriber(self, networkConditionChanged: change.video, audioStats: change.audio, reason: change.reason)
            }
        })
    }

    /// The latest raw report, unprocessed, as a JSON array (`"[]"` before the first).
    public func rtcStatsReport() -> String {
        core.withEngine { _ in rawReport?.jsonArray() ?? "[]" }
    }

    /// Asks for the raw report; ``rtcStatsReportDelegate`` receives it on `queue`. While a call
    /// samples this stream (a `CallSubscriber`'s monitor), it is a fresh report, a new
    /// `getStats()` of the connection; otherwise the latest one fed.
    public func getRtcStatsReport(on queue: DispatchQueue = .global()) {
        let source = core.withEngine { _ in freshReports }
        Task {
            if let fresh = await source?() { core.withEngine { _ in rawReport = fresh.report } }
            let report = rtcStatsReport()
            let delegate = rtcStatsReportDelegate
            queue.async { delegate?.subscriber(self, rtcStatsReport: report) }
        }
    }

    /// Makes this stream relayed (its publisher sends to this device directly): the
    /// publisher's side (``SubscriberStats/remotePublisherTransport``) comes from the
    /// connection's own RTCP (the publisher's sender reports give its send rate) and from the
    /// device's other relayed links on `board`, which this monitor joins.
    package func shareRelayedLinks(on board: RelayedLinkBoard) {
        core.withEngine { engine in
            engine.receiveRelayed(endpoint: Self.endpoint)
            relayedLinks = board
        }
    }

    /// Where ``getRtcStatsReport(on:)`` takes a fresh report from (`nil`: the latest fed).
    package func setFreshReportSource(_ source: FreshReportSource?) {
        core.withEngine { _ in freshReports = source }
    }
}
