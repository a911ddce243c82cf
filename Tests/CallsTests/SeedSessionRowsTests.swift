import CallScopeTesting
@testable import Calls
import Foundation
import Observability
import RTCStats
import Testing

/// Seeds 003 and 004 as they describe sessions, participants and streams (issue 23 items 7, 8,
/// 10, 13), on the fake router and engine.
@Suite(.timeLimit(.minutes(1))) struct SeedSessionRowsTests {
    typealias Rig = CallSessionTests.Rig

    static func names(_ events: [CallSessionEvent]) -> [String] { RoomRosterTests.names(events) }

    // MARK: - Item 7: participants and streams at join

    @Test func aParticipantAlreadyThereWhoDoesNotPublishConnects() async throws {
        let rig = Rig()
        rig.signaling.setRoom(participantID: FeedID("100"), feeds: [CallSessionTests.feed7],
                              attendees: [RouterAttendee(id: FeedID("5"), display: "carol")])
        try await rig.session.connect(display: "me")
        await eventually("carol connected") { Self.names(rig.events.all).contains("participantDidConnect 5") }
        #expect(Self.names(rig.events.all) == ["didConnect", "connectionCreated 7", "participantDidConnect 7", "streamCreated 7",
                                               "connectionCreated 5", "participantDidConnect 5"])
        #expect(await rig.session.participants.map(\.connectionId) == ["5", "7"])
        #expect(await rig.session.streams.map(\.streamId) == ["7"], "carol publishes nothing")
    }

    @Test func ourOwnStreamComesThroughStreamCreatedAndIsMine() async throws {
        let rig = Rig(feeds: [])
        try await rig.session.connect(display: "me")
        let publisher = CallPublisher(settings: CallPublisherSettings(name: "me"))
        try await rig.session.publish(publisher)
        await eventually("streamCreated") { Self.names(rig.events.all).contains("streamCreated 100") }
        let created = rig.events.all.compactMap { if case .streamCreated(let s) = $0 { s } else { nil } }
        let own = try #require(await rig.session.connection)
        // Seed 004's check: `stream.connection.connectionId == session.connection.connectionId`.
        #expect(created.map { $0.connection.connectionId == own.connectionId } == [true])
        #expect(created.first == publisher.stream)
        await rig.session.unpublish(publisher)
        await eventually("destroyed") { Self.names(rig.events.all).last == "streamDestroyed 100 unpublished" }
    }

    /// The reconnect window runs out; the router says whether the publisher still publishes.
    @Test(arguments: [true, false])
    func aStreamDroppedAfterTheWindowIsOfferedAgainWhileItsPublisherPublishes(stillPublishing: Bool) async throws {
        let rig = Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(60), reconnectWindow: .seconds(10), subscriberHealthInterval: nil))
        rig.signaling.setPublishing(FeedID("7"), stillPublishing)
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        let lifecycle = Collector(subscriber.events)
        try await rig.session.subscribe(subscriber)
        rig.engine.emit(.iceConnectionState(PeerConnectionID("pc-1"), .connected))
        rig.engine.emit(.iceConnectionState(PeerConnectionID("pc-1"), .disconnected))
        await eventually("didDisconnect") { lifecycle.all.count == 2 }
        await rig.clock.waitForSleepers(3)
        rig.clock.advance(by: .seconds(10))
        await eventually("asked the router") { rig.signaling.calls.contains("isPublishing 7") }
        for _ in 0..<200 { await Task.yield() }
        let seven = Self.names(rig.events.all).filter { $0.hasPrefix("stream") }
        #expect(seven == ["streamCreated 7", "streamDestroyed 7 mediaLost"] + (stillPublishing ? ["streamCreated 7"] : []))
        #expect(await rig.session.streams.map(\.streamId) == (stillPublishing ? ["7"] : []))
    }

    // MARK: - Item 8: stream properties

    @Test func thePublisherDescribesItsStreamToTheRouterBeforePublishing() async throws {
        let rig = Rig(feeds: [])
        try await rig.session.connect(display: "me")
        let settings = CallPublisherSettings(name: "my screen", videoType: .screen, media: LocalMediaSettings(width: 1280, height: 720))
        try await rig.session.publish(CallPublisher(settings: settings))
        let calls = rig.signaling.calls
        let describe = try #require(calls.firstIndex { $0.hasPrefix("describe ") })
        let publish = try #require(calls.firstIndex { $0.hasPrefix("publish ") })
        #expect(describe < publish, "the first announcement of our feed carries the description")
        let text = String(calls[describe].dropFirst("describe ".count))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "my screen" && object["videoType"] as? String == "screen")
        // t0 = 1 800 000 000 s since 1970, in milliseconds.
        #expect((object["created"] as? NSNumber)?.int64Value == 1_800_000_000_000)
        #expect((object["width"] as? NSNumber)?.intValue == 1280 && (object["height"] as? NSNumber)?.intValue == 720)
        #expect((object["audio"] as? NSNumber)?.boolValue == true && (object["video"] as? NSNumber)?.boolValue == true)
    }

    @Test func aSubscriberReadsTheDescriptionBeforeSubscribing() async throws {
        let published = Date(timeIntervalSince1970: 1_799_999_000)
        let text = #"{"audio":true,"callscope":1,"created":1799999000000,"height":540,"name":"alice cam","video":false,"videoType":"custom","width":960}"#
        let feed = RouterFeed(id: FeedID("7"), display: "alice", hasAudio: true, hasVideo: true, mediaDescription: text)
        let rig = Rig(feeds: [feed])
        try await rig.session.connect()
        let stream = try await rig.stream("7")
        #expect(stream.name == "alice cam" && stream.videoType == .custom)
        #expect(stream.creationTime == published, "the publisher's time, not when we saw it (t0)")
        #expect(stream.videoDimensions == CallVideoDimensions(width: 960, height: 540))
        #expect(stream.hasAudio && !stream.hasVideo, "its camera is off")
    }

    /// Another client's description is free text: its name, or its video type when it is one.
    @Test(arguments: [("My front webcam", "My front webcam", CallStreamVideoType.camera), ("screen", "alice", .screen),
                      ("{not json", "{not json", .camera), (#"{"callscope":1,"width":-3,"height":1e9}"#, "alice", .camera)])
    func otherDescriptionsNeverFail(text: String, name: String, type: CallStreamVideoType) {
        let feed = RouterFeed(id: FeedID("7"), display: "alice", hasAudio: true, hasVideo: true, mediaDescription: text)
        let stream = RoomRoster.stream(feed, connection: CallConnection(connectionId: "7", creationTime: CallSessionTests.t0, data: nil),
                                       now: CallSessionTests.t0)
        #expect(stream.name == name && stream.videoType == type && stream.videoDimensions == nil && stream.creationTime == CallSessionTests.t0)
    }

    @Test func publishVideoAndPublishAudioOffTurnHasVideoAndHasAudioOffForEveryone() async throws {
        let rig = Rig(feeds: [])
        try await rig.session.connect(display: "me")
        let publisher = CallPublisher(settings: CallPublisherSettings(name: "me"))
        try await rig.session.publish(publisher)
        publisher.publishVideo = false
        publisher.publishAudio = false
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("own stream changed") { Self.names(rig.events.all).last == "streamPropertiesChanged 100 audio=false video=false" }
        #expect(publisher.stream?.hasVideo == false && publisher.stream?.hasAudio == false)
        #expect(rig.engine.calls.contains("setTracksEnabled pc-1 video false") && rig.engine.calls.contains("setTracksEnabled pc-1 audio false"))
        let described = rig.signaling.calls.filter { $0.hasPrefix("describe ") }
        #expect(described.count == 2 && described.last?.contains(#""video":false"#) == true && described.last?.contains(#""audio":false"#) == true)
        // Another participant's view: the router announces the feed again with that description.
        var roster = RoomRoster(own: FeedID("1"))
        let on = RouterFeed(id: FeedID("100"), display: "me", hasAudio: true, hasVideo: true,
                            mediaDescription: String(described[0].dropFirst("describe ".count)))
        var off = on
        off.mediaDescription = String(described[1].dropFirst("describe ".count))
        _ = roster.receive(.feedsPublished([on]), now: CallSessionTests.t0)
        #expect(Self.names(roster.receive(.feedsPublished([off]), now: CallSessionTests.t0)) == ["streamPropertiesChanged 100 audio=false video=false"])
        #expect(roster.receive(.feedsPublished([off]), now: CallSessionTests.t0).isEmpty, "announced again unchanged: nothing")
    }

    // MARK: - Item 10: RemoteParticipant.disconnect()

    @Test func disconnectEndsOurSideWithOneParticipantThenLeavesAfterTheLast() async throws {
        let nine = RouterFeed(id: FeedID("9"), display: "nine", hasAudio: true, hasVideo: true)
        let rig = Rig(feeds: [CallSessionTests.feed7, nine])
        try await rig.session.connect()
        try await rig.session.subscribe(CallSubscriber(stream: try await rig.stream("7")))
        // No stats yet: its paths are empty, and disconnect works all the same.
        let seven = try #require(await rig.session.participants.first { $0.connectionId == "7" })
        #expect(seven.paths == [])
        await seven.disconnect()
        #expect(rig.signaling.calls.contains("close sub-1"))
        await eventually("seven gone") { Self.names(rig.events.all).last == "participantDidDisconnect 7" }
        #expect(Self.names(rig.events.all).suffix(3) == ["streamDestroyed 7 hungUp", "connectionDestroyed 7", "participantDidDisconnect 7"])
        #expect(await rig.session.isConnected && rig.signaling.calls.last != "leave", "nine is still in the call")
        #expect(await rig.session.subscribers.isEmpty)
        // What the router says later of the participant we hung up on is ignored until it leaves.
        rig.signaling.emit(.feedsPublished([CallSessionTests.feed7]))
        rig.signaling.emit(.participantLeft(FeedID("7")))
        for _ in 0..<200 { await Task.yield() }
        #expect(Self.names(rig.events.all).last == "participantDidDisconnect 7")
        let last = try #require(await rig.session.participants.first)
        await last.disconnect()
        #expect(rig.signaling.calls.last == "leave")
        await eventually("the call ended") { Self.names(rig.events.all).last == "didDisconnect" }
        #expect(Self.names(rig.events.all).suffix(3) == ["streamDestroyed 9 hungUp", "participantDidDisconnect 9", "didDisconnect"])
        await last.disconnect()                                   // after the call: nothing
    }

    // MARK: - Item 13: paths end to end

    /// Our leg, theirs (`nil`: unknown) and the whole path.
    struct Legs: Sendable {
        var ours: ConnectionPaths
        var theirs: ConnectionPaths?
        var whole: ConnectionPaths
    }

    @Test(arguments: [
        Legs(ours: .udpDirect, theirs: nil, whole: .udpDirect),
        Legs(ours: .udpDirect, theirs: .tcpRelay, whole: .tcpRelay),
        Legs(ours: .tcpRelay, theirs: .udpDirect, whole: .tcpRelay),
        Legs(ours: [.udpDirect, .udpRelay], theirs: .udpDirect, whole: [.udpDirect, .udpRelay]),
        Legs(ours: .udpDirect, theirs: [.udpDirect, .udpRelay], whole: [.udpDirect, .udpRelay]),
        Legs(ours: .udpDirect, theirs: [], whole: []),
        Legs(ours: [], theirs: .udpDirect, whole: []),
    ])
    func theWholePathIsClassedByItsWeakerLeg(_ legs: Legs) {
        #expect(ParticipantBook.endToEnd(legs.ours, legs.theirs) == legs.whole)
    }

    @Test func aParticipantWhoDoesNotPublishHasThePathsOfOurLegToTheRouter() async throws {
        let rig = Rig(feeds: [], configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
        rig.signaling.setRoom(participantID: FeedID("100"), feeds: [], attendees: [RouterAttendee(id: FeedID("5"), display: "carol")])
        try await rig.session.connect()
        try await rig.session.publish(CallPublisher())
        rig.engine.setReport(CallSessionParticipantTests.report(at: 1000, alive: true), for: PeerConnectionID("pc-1"))
        // The publication's stats pump is not the only task sleeping on the clock, so one step
        // may wake another one first: step a second at a time (the report does not change).
        await eventually("carol's paths") {
            if await rig.session.participants.first?.paths == .udpDirect { return true }
            if rig.clock.sleeperCount > 0 { rig.clock.advance(by: .seconds(1)) }
            return false
        }
        let carol = try #require(await rig.session.participants.first)
        #expect(carol.connectionId == "5" && carol.localPaths == .udpDirect && carol.remotePaths == nil)
        await eventually("the paths event") { Self.names(rig.events.all).contains("participantPathsChanged 5 udpDirect") }
    }
}
