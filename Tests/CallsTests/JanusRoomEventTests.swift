import Observability
import Calls
@testable import CallsJanus
import RTCStats
import Testing

/// VideoRoom events on the participant handle, in the shapes measured on Janus 1.1.2
/// (docs/spec/sessions.md §6), read into room events.
@Suite struct JanusRoomEventTests {
    static func events(_ json: String) throws -> [SignalingEvent] {
        JanusSignaling.roomEvents(try JSONParser.parse(json))
    }

    @Test func publishersCarryStreamsAndDescriptions() throws {
        let events = try Self.events("""
            {"videoroom":"event","room":1234,"publishers":[{"id":4242,"display":"alice","streams":[
              {"type":"audio","mindex":0,"mid":"0","codec":"opus"},
              {"type":"video","mindex":1,"mid":"1","codec":"vp8","description":"screen","simulcast":true},
              {"type":"data","mindex":2,"mid":"2"}]}]}
            """)
        #expect(events == [.feedsPublished([RouterFeed(id: FeedID("4242"), display: "alice", hasAudio: true, hasVideo: true,
                                                       mediaDescription: "screen")])])
    }

    /// An audio-only feed's description is its audio section's (item 8: every feed can carry a name).
    @Test func anAudioOnlyFeedsDescriptionIsItsAudioSections() throws {
        let events = try Self.events("""
            {"videoroom":"event","publishers":[{"id":6,"streams":[{"type":"audio","mid":"0","description":"carol mic"}]}]}
            """)
        #expect(events == [.feedsPublished([RouterFeed(id: FeedID("6"), display: nil, hasAudio: true, hasVideo: false, mediaDescription: "carol mic")])])
    }

    /// `descriptions` go on the audio and video mids of our offer, not on the data channel's.
    @Test func descriptionsGoOnEveryAudioAndVideoMid() throws {
        let sdp = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:2\r\n"
        #expect(VideoRoomDescriptions.mediaMids(sdp) == ["0", "1"])
        let json = VideoRoomDescriptions.json("d", offer: SessionDescription(kind: .offer, sdp: sdp))
        #expect(JSONWriter.string(json) == #"[{"mid":"0","description":"d"},{"mid":"1","description":"d"}]"#)
    }

    @Test func aDisabledVideoSectionIsNoVideo() throws {
        let events = try Self.events("""
            {"videoroom":"event","publishers":[{"id":5,"streams":[{"type":"audio","mid":"0"},{"type":"video","mid":"1","disabled":true}]}]}
            """)
        #expect(events == [.feedsPublished([RouterFeed(id: FeedID("5"), display: nil, hasAudio: true, hasVideo: false)])])
    }

    @Test func unpublishedLeavingKickedAndJoining() throws {
        #expect(try Self.events(#"{"videoroom":"event","room":1234,"unpublished":4242}"#) == [.feedUnpublished(FeedID("4242"))])
        #expect(try Self.events(#"{"videoroom":"event","room":1234,"leaving":4242}"#) == [.participantLeft(FeedID("4242"))])
        #expect(try Self.events(#"{"videoroom":"event","room":1234,"kicked":4242}"#) == [.participantLeft(FeedID("4242"))])
        #expect(try Self.events(#"{"videoroom":"event","room":1234,"joining":{"id":99,"display":"bob"}}"#)
                == [.participantJoined(FeedID("99"), display: "bob")])
    }

    @Test func ourOwnOkRepliesAndOtherMessagesAreNoRoomEvents() throws {
        #expect(try Self.events(#"{"videoroom":"event","room":1234,"unpublished":"ok"}"#).isEmpty)
        #expect(try Self.events(#"{"videoroom":"event","room":1234,"leaving":"ok"}"#).isEmpty)
        #expect(try Self.events(#"{"videoroom":"joined","id":1,"publishers":[]}"#).isEmpty)
        #expect(try Self.events(#"{"videoroom":"event","configured":"ok"}"#).isEmpty)
    }

    @Test func pluginErrorsCarryTheirCode() throws {
        let message = try JSONParser.parse(#"{"janus":"event","sender":7,"plugindata":{"plugin":"janus.plugin.videoroom","data":{"videoroom":"event","error_code":428,"error":"No such feed (1)"}}}"#)
        guard case .plugin(let data, let jsep) = JanusEvent(message: message) else { Issue.record("not a plugin event"); return }
        #expect(data["error_code"]?.number == 428 && jsep == nil)
        #expect(JanusEvent(message: try JSONParser.parse(#"{"janus":"hangup","sender":7,"reason":"ICE failed"}"#)) == .hangup(reason: "ICE failed"))
        #expect(JanusEvent(message: try JSONParser.parse(#"{"janus":"media","sender":7,"mid":"1","type":"video","receiving":false}"#))
                == .media(mid: "1", type: "video", receiving: false))
    }
}
