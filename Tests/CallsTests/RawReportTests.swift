import CallScopeCore
import CallScopeTesting
@testable import Calls
import Foundation
import Observability
import RTCStats
import Testing

/// `getRtcStatsReport()` on the call objects (seed 000: `publisher.getRtcStatsReport()` with its
/// `rtcStatsReportDelegate`): a fresh report, a new `getStats()` of the connection, not the one
/// the last stats interval sampled; a republished publisher lists its new connection only.
@Suite(.timeLimit(.minutes(1))) struct RawReportTests {
    final class Catcher: RtcStatsReportDelegate {
        let subscriberReports = Locked<[String]>([])
        let publisherReports = Locked<[[PublisherRtcStats]]>([])
        func subscriber(_ monitor: SubscriberStatsMonitor, rtcStatsReport jsonArrayOfReports: String) {
            subscriberReports.withLock { $0.append(jsonArrayOfReports) }
        }
        func publisher(_ monitor: PublisherStatsMonitor, rtcStatsReport stats: [PublisherRtcStats]) {
            publisherReports.withLock { $0.append(stats) }
        }
    }

    @Test func aSubscribersReportIsANewGetStatsNotTheLastSample() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(1), subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        rig.engine.setReport(CallSessionTests.pairReport(bytes: 111, at: 1000), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("sampled") { subscriber.statsMonitor.rtcStatsReport().contains("111") }
        // The connection moved on since the sample; nobody advanced the clock.
        rig.engine.setReport(CallSessionTests.pairReport(bytes: 222, at: 1500), for: pc)
        let catcher = Catcher()
        subscriber.rtcStatsReportDelegate = catcher
        subscriber.getRtcStatsReport()
        await eventually("delivered") { !catcher.subscriberReports.withLock { $0 }.isEmpty }
        let report = try #require(catcher.subscriberReports.withLock { $0.first })
        #expect(report.contains("\"bytesReceived\":222") && !report.contains("111"), "the fresh report: \(report)")
        // Unsubscribed: the last one fed, no new getStats.
        await rig.session.unsubscribe(subscriber)
        let stats = rig.engine.calls.filter { $0 == "stats pc-1" }.count
        subscriber.getRtcStatsReport()
        await eventually("delivered again") { catcher.subscriberReports.withLock { $0 }.count == 2 }
        #expect(rig.engine.calls.filter { $0 == "stats pc-1" }.count == stats)
        await rig.session.disconnect()
    }

    @Test func aRepublishedPublisherListsItsNewConnectionOnly() async throws {
        let p = try await PublisherReconnectionTests.published()
        await PublisherReconnectionTests.second(p.rig, 300)
        p.rig.signaling.emit(.hangup(FakeSignaling.participantHandle, reason: "ICE failed"))
        await eventually("republished") { p.rig.engine.calls.contains("setRemote pc-2 answer to fake offer 2") }
        await PublisherReconnectionTests.second(p.rig, 0, on: PublisherReconnectionTests.pc2)
        p.rig.engine.setReport(CallSessionTests.pairReport(bytes: 0, responses: 333, at: 9000), for: PublisherReconnectionTests.pc2)
        let catcher = Catcher()
        p.publisher.rtcStatsReportDelegate = catcher
        p.publisher.getRtcStatsReport()
        await eventually("delivered") { !catcher.publisherReports.withLock { $0 }.isEmpty }
        let reports = try #require(catcher.publisherReports.withLock { $0.first })
        #expect(reports.count == 1, "pc-1 is gone: \(reports.map(\.jsonArrayOfReports))")
        #expect(reports.first?.jsonArrayOfReports.contains("\"responsesReceived\":333") == true)
        await p.rig.session.disconnect()
    }
}
