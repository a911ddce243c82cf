@testable import callscope
import Calls
import Foundation
import RTCStats
import Testing

/// `callscope call --record`'s file: the header first, listing every stream the call saw (once,
/// in the order first seen), then the lines in the order written (expected text by hand).
@Suite struct CallRecorderTests {
    @Test func theHeaderComesFirstAndListsTheCallsStreams() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("callrecorder-\(UUID().uuidString).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try CallRecorder(path: path, display: "bob")
        let connection = CallConnection(connectionId: "4242", creationTime: Date(timeIntervalSince1970: 1), data: "alice")
        let theirs = CallStream(streamId: "4242", connection: connection, creationTime: Date(timeIntervalSince1970: 1),
                                hasAudio: true, hasVideo: true, name: "alice", videoType: .camera)
        let ours = CallStream(streamId: "77", connection: CallConnection(connectionId: "77", creationTime: Date(timeIntervalSince1970: 1), data: nil),
                              creationTime: Date(timeIntervalSince1970: 1), hasAudio: true, hasVideo: true, name: nil, videoType: .camera)
        recorder.writer.writeSample(time: 1000, peer: "bob.publisher", peerConnection: "pc-0", report: StatsReport(entries: []))
        recorder.noteStream(theirs, own: false)
        recorder.noteStream(ours, own: true)
        recorder.noteStream(theirs, own: false)
        recorder.writer.writeSenderStats(time: 2000, peer: "bob", peerConnection: "pc-1", message: #"{"v":1}"#)
        try recorder.finish(browser: nil, sfu: "janus 1.1.2", intervalMilliseconds: 1000)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == """
            {"format":"webrtc-stats-recording","version":1,"scenario":"callscope-call","browser":"unknown","sfu":"janus 1.1.2","interval_ms":1000,"publishers":[{"publisher":"4242","stream":"4242","name":"alice","own":false},{"publisher":"77","stream":"77","name":null,"own":true}]}
            {"t":1000,"peer":"bob.publisher","pc":"pc-0","report":[]}
            {"t":2000,"peer":"bob","pc":"pc-1","event":"sender-stats","data":{"v":1}}

            """)
    }

    @Test func aLifecycleEventNamesItsStreamAndHasNoPC() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("callrecorder-\(UUID().uuidString).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try CallRecorder(path: path, display: "bob")
        recorder.lifecycle(TimelineEventName.subscriberDidConnect, stream: "4242", data: .object([]))
        recorder.lifecycle(TimelineEventName.sessionDidDisconnect, stream: "", data: .object([]))
        try recorder.finish(browser: "Chromium 1", sfu: nil, intervalMilliseconds: 1000)
        let timeline = try RecordingReader.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let events = timeline.items.compactMap { item -> TimelineEvent? in if case .event(let event) = item { event } else { nil } }
        #expect(events.map(\.name) == ["subscriber.didConnect", "session.didDisconnect"])
        #expect(events.map(\.peer) == ["bob", "bob"] && events.allSatisfy { $0.peerConnection == nil })
        #expect(events.map(\.data) == [.object([StatsField("stream", .string("4242"))]), .object([])])
    }

    @Test func aGzipNameIsRefused() {
        #expect(throws: UsageError.self) { try CallRecorder(path: "/tmp/x.ndjson.gz", display: "bob") }
    }
}
