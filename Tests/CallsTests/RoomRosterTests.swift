@testable import Calls
import Observability
import Foundation
import Testing

/// The roster turns the router's repetitive room events into one create and one destroy per
/// stream and connection (docs/spec/sessions.md §6: `unpublished` seen twice, then `leaving`).
@Suite struct RoomRosterTests {
    static let t = Date(timeIntervalSince1970: 1_800_000_000)
    static func feed(_ id: String, video: Bool = true, description: String? = nil) -> RouterFeed {
        RouterFeed(id: FeedID(id), display: "p\(id)", hasAudio: true, hasVideo: video, mediaDescription: description)
    }
    static func names(_ events: [CallSessionEvent]) -> [String] {
        events.map { event in
            switch event {
            case .streamCreated(let s): "streamCreated \(s.streamId)"
            case .streamDestroyed(let s, let reason): "streamDestroyed \(s.streamId) \(reason.rawValue)"
            case .connectionCreated(let c): "connectionCreated \(c.connectionId)"
            case .connectionDestroyed(let c): "connectionDestroyed \(c.connectionId)"
            case .didConnect: "didConnect"
            case .didDisconnect: "didDisconnect"
            case .didFail: "didFail"
            case .participantDidConnect(let p): "participantDidConnect \(p.connectionId)"
            case .participantDidDisconnect(let p): "participantDidDisconnect \(p.connectionId)"
            case .participantPathsChanged(let p): "participantPathsChanged \(p.connectionId) \(p.paths)"
            case .participantConnectionQualityChanged(let p): "participantConnectionQualityChanged \(p.connectionId) \(p.connectionQuality.rawValue)"
            case .connectionStateChanged(let state): "connectionStateChanged \(state.rawValue)"
            case .streamVideoDimensionsChanged(let s): "streamVideoDimensionsChanged \(s.streamId) \(s.videoDimensions.map { "\($0.width)x\($0.height)" } ?? "-")"
            case .streamPropertiesChanged(let s): "streamPropertiesChanged \(s.streamId) audio=\(s.hasAudio) video=\(s.hasVideo)"
            }
        }
    }

    @Test func publishersRepeatedCreateOnceAndOwnFeedIsIgnored() {
        var roster = RoomRoster(own: FeedID("1"))
        #expect(Self.names(roster.receive(.feedsPublished([Self.feed("1"), Self.feed("7")]), now: Self.t))
                == ["connectionCreated 7", "streamCreated 7"])
        #expect(roster.receive(.feedsPublished([Self.feed("7")]), now: Self.t).isEmpty)
        #expect(roster.ignoredInputs == 1)
    }

    @Test func joiningThenPublishingCreatesTheConnectionOnce() {
        var roster = RoomRoster(own: FeedID("1"))
        #expect(Self.names(roster.receive(.participantJoined(FeedID("7"), display: "p7"), now: Self.t)) == ["connectionCreated 7"])
        #expect(Self.names(roster.receive(.feedsPublished([Self.feed("7")]), now: Self.t)) == ["streamCreated 7"])
    }

    @Test func duplicateUnpublishedThenLeavingDestroyEachOnce() {
        var roster = RoomRoster(own: FeedID("1"))
        _ = roster.receive(.feedsPublished([Self.feed("7")]), now: Self.t)
        #expect(Self.names(roster.receive(.feedUnpublished(FeedID("7")), now: Self.t)) == ["streamDestroyed 7 unpublished"])
        #expect(roster.receive(.feedUnpublished(FeedID("7")), now: Self.t).isEmpty)
        #expect(Self.names(roster.receive(.participantLeft(FeedID("7")), now: Self.t)) == ["connectionDestroyed 7"])
        #expect(roster.receive(.participantLeft(FeedID("7")), now: Self.t).isEmpty)
    }

    @Test func leavingWhilePublishingDestroysStreamThenConnection() {
        var roster = RoomRoster(own: FeedID("1"))
        _ = roster.receive(.feedsPublished([Self.feed("7")]), now: Self.t)
        #expect(Self.names(roster.receive(.participantLeft(FeedID("7")), now: Self.t))
                == ["streamDestroyed 7 publisherLeft", "connectionDestroyed 7"])
    }

    @Test func streamInformationComesFromTheFeed() throws {
        var roster = RoomRoster(own: FeedID("1"))
        let events = roster.receive(.feedsPublished([Self.feed("7", video: false, description: "screen")]), now: Self.t)
        guard case .streamCreated(let stream) = try #require(events.last) else { Issue.record("no stream"); return }
        #expect(stream.streamId == "7" && stream.connection.connectionId == "7" && stream.name == "p7")
        #expect(stream.hasAudio && !stream.hasVideo && stream.videoType == .screen && stream.creationTime == Self.t)
    }

    static func join(_ feeds: [RouterFeed], attendees: [RouterAttendee] = []) -> RoomJoin {
        RoomJoin(participantID: FeedID("1"), participantHandle: RouterHandleID("h"), feeds: feeds, attendees: attendees)
    }

    @Test func aFeedIdThatChangesAfterRejoinIsDestroyedAndCreated() {
        var roster = RoomRoster(own: FeedID("1"))
        _ = roster.receive(.feedsPublished([Self.feed("7"), Self.feed("9")]), now: Self.t)
        #expect(Self.names(roster.rejoined(Self.join([Self.feed("8"), Self.feed("9")]), now: Self.t))
                == ["streamDestroyed 7 publisherLeft", "connectionDestroyed 7", "connectionCreated 8", "streamCreated 8"])
        #expect(roster.rejoined(Self.join([Self.feed("8"), Self.feed("9")]), now: Self.t).isEmpty)
    }
}
