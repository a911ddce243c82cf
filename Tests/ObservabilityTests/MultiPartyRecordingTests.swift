import CallScopeReplay
import CallScopeTestSupport
import Foundation
import Observability
import RTCStats
import Testing

/// The rig's real two-publisher calls (Chromium ×3 through Janus): one stream per publisher,
/// each reading its own publisher's sender stats, over one connection per feed and over one
/// multistream connection.
@Suite struct MultiPartyRecordingTests {
    static let recordings = ["two-publishers-uplink-300k", "two-publishers-uplink-300k-multistream",
                             "two-publishers-downlink-loss-10", "two-publishers-downlink-loss-10-multistream"]

    @Test(arguments: recordings)
    func eachPublisherIsOneStreamWithItsOwnSenderStats(name: String) throws {
        let url = Synthetic.repositoryRoot().appendingPathComponent("Recordings/\(name).ndjson.gz")
        let timeline = try StatsTimeline.read([UInt8](try Data(contentsOf: url)))
        // What each publisher itself sent, read from the recording's own sender-stats lines.
        var sentEstimates: [String: [Double]] = [:]
        for item in timeline.items {
            guard case .event(let event) = item, event.name == TimelineEventName.senderStats,
                  let publisher = event.data["publisher"]?.string, let estimate = event.data["connectionEstimatedBandwidth"]?.number else { continue }
            sentEstimates[publisher, default: []].append(estimate)
        }
        #expect(Set(sentEstimates.keys) == ["publisher-a", "publisher-b"])

        var reported: [String: [Double]] = [:]
        var streams: Set<String> = []
        for callback in ReplayDriver.replay(timeline) {
            guard case .subscriberVideoNetworkStatsUpdated(let video) = callback.event else { continue }
            streams.insert(callback.stream?.rawValue ?? "")
            #expect(callback.publisher?.rawValue == callback.stream?.rawValue, "the stream of publisher-x comes from publisher-x")
            if let estimate = video.senderStats?.connectionEstimatedBandwidth { reported[callback.stream?.rawValue ?? "", default: []].append(estimate) }
        }
        #expect(streams == ["publisher-a", "publisher-b"])
        for publisher in ["publisher-a", "publisher-b"] {
            // Every estimate a stream reports is one its own publisher sent, never the other's.
            let own = Set(sentEstimates[publisher] ?? [])
            let values = reported[publisher] ?? []
            #expect(values.count >= 50, "\(publisher): sender stats most seconds")
            #expect(values.allSatisfy(own.contains), "\(publisher) reports only its own publisher's estimates")
        }
    }
}
