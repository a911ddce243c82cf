import CallScopeTestSupport
@testable import Observability
import RTCStats
import Testing

/// The publisher's side of a relayed subscription, from the link's own RTCP and the device's
/// other links (docs/peer-to-peer.md, "The subscriber's remote side"). Expected values follow
/// the rule of `RelayedLinkAttribution` and hand calculation.
@Suite struct RelayedSubscriberSideTests {
    typealias Judgement = RelayedLinkAttribution.Judgement

    static let excellent = Judgement(condition: .excellent, reason: .none)
    static let good = Judgement(condition: .good, reason: .none)
    static let lossCritical = Judgement(condition: .critical, reason: .packetLoss)
    static let lossWarning = Judgement(condition: .warning, reason: .packetLoss)
    static let capWarning = Judgement(condition: .warning, reason: .bandwidth)
    static let unknown = Judgement(condition: .unknown, reason: .unknown)

    /// (name, link, other links, expected local, expected remote).
    static let table: [(String, Judgement, [Judgement], Judgement, Judgement)] = [
        ("healthy link alone", excellent, [], excellent, excellent),
        ("healthy link among degraded ones", good, [lossCritical], good, good),
        ("degraded link alone: both ends see it", lossCritical, [], lossCritical, lossCritical),
        ("degraded link, another one healthy: the publisher's side", lossCritical, [good], good, lossCritical),
        ("degraded link, the best other one is taken", lossCritical, [lossWarning, excellent], excellent, lossCritical),
        ("every link degraded: this downlink", lossWarning, [lossCritical, capWarning], lossWarning, unknown),
        ("others unknown count as none", lossCritical, [unknown], lossCritical, lossCritical),
    ]

    @Test(arguments: table.indices)
    func attribution(index: Int) {
        let (name, link, others, local, remote) = Self.table[index]
        let attribution = RelayedLinkAttribution(link: link, otherLinks: others)
        #expect(attribution.local == local, "\(name)")
        #expect(attribution.remote == remote, "\(name)")
    }

    // MARK: - The publisher's send rate from its sender reports

    /// One receive report: a video inbound entry linked to its `remote-outbound-rtp`, and an
    /// audio one when `audio` is given (bytes sent, remote time in ms).
    private static func report(at time: Double, video: (Double, Double), audio: (Double, Double)? = nil) -> StatsReport {
        var entries = [
            Synthetic.entry("IV", .inboundRTP, at: time, ["kind": "video", "remoteId": "ROV", "packetsReceived": 1, "bytesReceived": 1]),
            Synthetic.entry("ROV", .remoteOutboundRTP, at: time, ["kind": "video", "localId": "IV", "bytesSent": video.0, "remoteTimestamp": video.1]),
        ]
        if let audio {
            entries += [
                Synthetic.entry("IA", .inboundRTP, at: time, ["kind": "audio", "remoteId": "ROA", "packetsReceived": 1, "bytesReceived": 1]),
                Synthetic.entry("ROA", .remoteOutboundRTP, at: time, ["kind": "audio", "localId": "IA", "bytesSent": audio.0, "remoteTimestamp": audio.1]),
            ]
        }
        return StatsReport(entries: entries)
    }

    private static func inbound(of report: StatsReport) -> [StatsEntry] {
        report.entries(ofType: .inboundRTP)
    }

    @Test func sendRateIsTakenBetweenSenderReports() {
        var rate = RemoteSendRate()
        let first = Self.report(at: 1_000, video: (0, 1_000), audio: (0, 1_000))
        #expect(rate.update(inbound: Self.inbound(of: first), in: first) == nil)
        // Video: 125,000 bytes in 1,000 ms = 1,000,000 bps; audio has not reported again.
        let second = Self.report(at: 2_000, video: (125_000, 2_000), audio: (0, 1_000))
        #expect(rate.update(inbound: Self.inbound(of: second), in: second) == 1_000_000)
        // No new sender report: the rate stands.
        let third = Self.report(at: 3_000, video: (125_000, 2_000), audio: (0, 1_000))
        #expect(rate.update(inbound: Self.inbound(of: third), in: third) == 1_000_000)
        // Audio: 25,000 bytes in 5,000 ms = 40,000 bps, added to video's 250,000 bytes in 2,000 ms.
        let fourth = Self.report(at: 6_000, video: (375_000, 4_000), audio: (25_000, 6_000))
        #expect(rate.update(inbound: Self.inbound(of: fourth), in: fourth) == 1_040_000)
    }

    @Test func aCounterThatGoesBackStartsThatSourceOver() {
        var rate = RemoteSendRate()
        for (bytes, time) in [(0.0, 1_000.0), (125_000, 2_000)] {
            let report = Self.report(at: time, video: (bytes, time))
            _ = rate.update(inbound: Self.inbound(of: report), in: report)
        }
        let reset = Self.report(at: 3_000, video: (1_000, 3_000))
        #expect(rate.update(inbound: Self.inbound(of: reset), in: reset) == nil)
        let after = Self.report(at: 4_000, video: (63_500, 4_000))
        #expect(rate.update(inbound: Self.inbound(of: after), in: after) == 500_000)
    }

    // MARK: - Through the engine: one device receiving from two publishers

    /// What the last report of each connection produced.
    struct LinkOutcome: Equatable {
        var local: NetworkCondition
        var remote: NetworkCondition
        var remoteEstimate: Double
        var source: NetworkDegradationSource
    }

    /// Carol receives `seconds` one-second intervals of 100 video packets on each connection
    /// in `lossPercent` (connection label → packets lost per interval), in a relayed session;
    /// each publisher's sender report says 125,000 bytes more every second (1 Mbit/s).
    private static func carol(lossPercent: [String: Double], seconds: Int = 8) -> [String: LinkOutcome] {
        var engine = CallStatsEngine(sessionModes: [EndpointID("carol"): .relayed])
        var outcomes: [String: LinkOutcome] = [:]
        for second in 0...seconds {
            for (connection, lost) in lossPercent.sorted(by: { $0.key < $1.key }) {
                let time = Double(second) * 1000 + (connection == "from-alice" ? 0 : 10)
                let received = Double(second) * (100 - lost), lostTotal = Double(second) * lost
                let entries = [
                    Synthetic.vp8Codec(at: time),
                    Synthetic.entry("IV", .inboundRTP, at: time, [
                        "kind": "video", "mid": "1", "remoteId": "ROV", "bytesReceived": received * 1000, "packetsReceived": received,
                        "packetsLost": lostTotal, "framesDecoded": Double(second) * 30, "frameWidth": 960, "frameHeight": 540, "codecId": "COV"]),
                    Synthetic.entry("ROV", .remoteOutboundRTP, at: time, [
                        "kind": "video", "localId": "IV", "bytesSent": Double(second) * 125_000, "remoteTimestamp": time]),
                ]
                let binding = StreamBinding(stream: StreamID(connection), publisher: PublisherID(connection))
                for callback in engine.ingest(Synthetic.sample("carol", pc: connection, at: time, entries), streams: [binding]) {
                    if case .subscriberMediaLinkStatsUpdated(let link) = callback.event {
                        outcomes[connection] = LinkOutcome(local: link.transport.networkCondition, remote: link.remotePublisherTransport.networkCondition,
                                                           remoteEstimate: link.remotePublisherTransport.connectionEstimatedBandwidth,
                                                           source: link.networkDegradationSource)
                    }
                }
            }
        }
        return outcomes
    }

    @Test func aLossyLinkBesideAHealthyOneIsThePublishersSide() {
        let outcomes = Self.carol(lossPercent: ["from-alice": 20, "from-bob": 0])
        // 20 % loss is critical; Bob's link shows Carol's downlink carries media well.
        #expect(outcomes["from-alice"] == LinkOutcome(local: .excellent, remote: .critical, remoteEstimate: 1_000_000, source: .remote))
        #expect(outcomes["from-bob"] == LinkOutcome(local: .excellent, remote: .excellent, remoteEstimate: 1_000_000, source: .none))
    }

    @Test func everyLinkLossyIsThisDownlink() {
        let outcomes = Self.carol(lossPercent: ["from-alice": 20, "from-bob": 15])
        for connection in ["from-alice", "from-bob"] {
            #expect(outcomes[connection] == LinkOutcome(local: .critical, remote: .unknown, remoteEstimate: 1_000_000, source: .local), "\(connection)")
        }
    }

    @Test func oneLossyLinkAloneCannotBeToldApart() {
        let outcomes = Self.carol(lossPercent: ["from-alice": 20])
        #expect(outcomes["from-alice"] == LinkOutcome(local: .critical, remote: .critical, remoteEstimate: 1_000_000, source: .bothOrUnclear))
    }

    @Test func aRoutedSessionKeepsThePublishersSideUnknownWithoutSenderStats() {
        var engine = CallStatsEngine()
        var remote: TransportStats?
        for second in 0...4 {
            let time = Double(second) * 1000
            let entries = [
                Synthetic.vp8Codec(at: time),
                Synthetic.entry("IV", .inboundRTP, at: time, [
                    "kind": "video", "mid": "1", "remoteId": "ROV", "bytesReceived": Double(second) * 80_000, "packetsReceived": Double(second) * 80,
                    "packetsLost": Double(second) * 20, "framesDecoded": Double(second) * 30, "frameWidth": 960, "frameHeight": 540, "codecId": "COV"]),
                Synthetic.entry("ROV", .remoteOutboundRTP, at: time, ["kind": "video", "localId": "IV", "bytesSent": Double(second) * 125_000, "remoteTimestamp": time]),
            ]
            for callback in engine.ingest(Synthetic.sample("carol", at: time, entries)) {
                if case .subscriberMediaLinkStatsUpdated(let link) = callback.event { remote = link.remotePublisherTransport }
            }
        }
        // Through a router the sender reports are the router's, not the publisher's.
        #expect(remote == .unknown)
    }

    // MARK: - Through two monitors of one device (the call's path)

    @Test func twoMonitorsOnOneBoardTellTheSidesApart() {
        let board = RelayedLinkBoard()
        let monitors = ["from-alice": SubscriberStatsMonitor(stream: "alice", publisher: "alice"),
                        "from-bob": SubscriberStatsMonitor(stream: "bob", publisher: "bob")]
        for monitor in monitors.values { monitor.shareRelayedLinks(on: board) }
        var sources: [String: NetworkDegradationSource] = [:]
        for second in 0...8 {
            for (connection, lost) in [("from-alice", 20.0), ("from-bob", 0)] {
                let time = Double(second) * 1000
                let received = Double(second) * (100 - lost)
                let report = StatsReport(entries: [
                    Synthetic.vp8Codec(at: time),
                    Synthetic.entry("IV", .inboundRTP, at: time, [
                        "kind": "video", "mid": "1", "bytesReceived": received * 1000, "packetsReceived": received,
                        "packetsLost": Double(second) * lost, "framesDecoded": Double(second) * 30, "frameWidth": 960, "frameHeight": 540, "codecId": "COV"]),
                ])
                guard let monitor = monitors[connection] else { continue }
                for callback in monitor.read(report, peerConnection: PeerConnectionID(connection)).callbacks {
                    if case .subscriberMediaLinkStatsUpdated(let link) = callback.event { sources[connection] = link.networkDegradationSource }
                }
            }
        }
        #expect(sources == ["from-alice": .remote, "from-bob": .none])
    }
}
