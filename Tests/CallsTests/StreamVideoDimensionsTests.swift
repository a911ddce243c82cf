import CallScopeTesting
@testable import Calls
import Foundation
import Observability
import RTCStats
import Testing

/// `CallStream.videoDimensions` from the frames a subscriber decodes (the video `inbound-rtp`
/// entry's `frameWidth` × `frameHeight`), with `streamVideoDimensionsChanged` when they change.
@Suite(.timeLimit(.minutes(1))) struct StreamVideoDimensionsTests {
    static func inbound(_ id: String = "IT01V1", kind: String = "video", width: Double?, height: Double?, decoded: Double = 10) -> StatsEntry {
        var fields = [StatsField("kind", .string(kind)), StatsField("framesDecoded", .number(decoded))]
        if let width { fields.append(StatsField("frameWidth", .number(width))) }
        if let height { fields.append(StatsField("frameHeight", .number(height))) }
        return StatsEntry(id: id, type: .inboundRTP, timestamp: 1, fields: fields)
    }

    /// (entries, expected "WxH" or nil): the spec's rule row by row.
    static let table: [([StatsEntry], String?)] = [
        ([inbound(width: 960, height: 540)], "960x540"),
        ([inbound(width: nil, height: nil, decoded: 0)], nil),                       // nothing decoded yet
        ([inbound(width: 960, height: nil)], nil),                                    // half a size
        ([inbound(width: 0, height: 0)], nil),
        ([inbound(width: -2, height: 540)], nil),
        ([inbound(width: 960.5, height: 540)], nil),
        ([inbound(width: 1e12, height: 540)], nil),
        ([inbound(kind: "audio", width: 960, height: 540)], nil),                     // not video
        ([inbound("A", width: 240, height: 136, decoded: 3), inbound("B", width: 480, height: 270, decoded: 90)], "480x270"),
        ([], nil),
    ]

    @Test(arguments: table.indices)
    func theDecodedSizeIsTheVideoInboundEntrysFrameSize(_ row: Int) {
        let (entries, expected) = Self.table[row]
        let dimensions = DecodedVideoSize(decodedIn: StatsReport(entries: entries))
        #expect(dimensions.map { "\($0.width)x\($0.height)" } == expected)
    }

    @Test func aRealChromiumSubscriberReportGivesItsDecodedSize() throws {
        // Captured on the rig (Fixtures/README.md): the subscriber decoded Alice's top layer.
        let report = try CandidatePairPathTrackerFixtureTests.fixture("chromium-loopback-1")
        let size = try #require(DecodedVideoSize(decodedIn: report))
        #expect((size.width, size.height) == (960, 540))
    }

    @Test func theRosterReportsEachNewSizeOnceAndNothingForUnknownStreams() {
        var roster = RoomRoster(own: FeedID("1"))
        _ = roster.receive(.feedsPublished([RoomRosterTests.feed("7")]), now: RoomRosterTests.t)
        let hd = CallVideoDimensions(width: 960, height: 540), small = CallVideoDimensions(width: 240, height: 136)
        #expect(RoomRosterTests.names(roster.decodedVideo(hd, of: FeedID("7"))) == ["streamVideoDimensionsChanged 7 960x540"])
        #expect(roster.decodedVideo(hd, of: FeedID("7")).isEmpty)
        #expect(RoomRosterTests.names(roster.decodedVideo(small, of: FeedID("7"))) == ["streamVideoDimensionsChanged 7 240x136"])
        #expect(roster.streams[FeedID("7")]?.videoDimensions == small)
        #expect(roster.decodedVideo(hd, of: FeedID("9")).isEmpty)
        _ = roster.receive(.feedUnpublished(FeedID("7")), now: RoomRosterTests.t)
        #expect(roster.decodedVideo(hd, of: FeedID("7")).isEmpty, "a stream that left gets no size")
    }

    @Test func theSessionUpdatesTheStreamTheSubscriberAndTellsTheApp() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        #expect(subscriber.stream.videoDimensions == nil)
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        // Samples 1-4: nothing decoded, 960x540, 960x540 again, then the router forwards a smaller layer.
        let sizes: [(Double, Double)?] = [nil, (960, 540), (960, 540), (480, 270)]
        for (index, size) in sizes.enumerated() {
            var entries = CallSessionTests.pairReport(bytes: Double(index + 1) * 1000).entries
            entries.append(Self.inbound(width: size?.0, height: size?.1, decoded: size == nil ? 0 : 10))
            rig.engine.setReport(StatsReport(entries: entries), for: pc)
            await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: .seconds(1))
            await eventually("sample \(index + 1)") { rig.engine.calls.filter { $0 == "stats pc-1" }.count == index + 1 }
        }
        await eventually("two size events") { Self.sizes(rig.events.all).count == 2 }
        await Task.yield()
        #expect(Self.sizes(rig.events.all) == ["7 960x540", "7 480x270"])
        #expect(subscriber.stream.videoDimensions == CallVideoDimensions(width: 480, height: 270))
        #expect(try await rig.stream("7").videoDimensions == CallVideoDimensions(width: 480, height: 270))
    }

    @Test func aStreamIsTheSameStreamWhateverItsSize() throws {
        let stream = CallStream(streamId: "7", connection: CallConnection(connectionId: "7", creationTime: RoomRosterTests.t, data: nil),
                                creationTime: RoomRosterTests.t, hasAudio: true, hasVideo: true, name: "p7", videoType: .camera)
        var sized = stream
        sized.videoDimensions = CallVideoDimensions(width: 960, height: 540)
        #expect(sized == stream && Set([stream, sized]).count == 1)
        var other = stream
        other.name = "other"
        #expect(other != stream)
    }

    static func sizes(_ events: [CallSessionEvent]) -> [String] {
        events.compactMap { event in
            guard case .streamVideoDimensionsChanged(let stream) = event, let size = stream.videoDimensions else { return nil }
            return "\(stream.streamId) \(size.width)x\(size.height)"
        }
    }
}
