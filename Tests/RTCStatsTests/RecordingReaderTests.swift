import CallScopeTestSupport
import RTCStats
import Testing

@Suite struct RecordingReaderTests {
    let header = #"{"format":"webrtc-stats-recording","version":1,"scenario":"t","interval_ms":1000}"#

    @Test func readsSamplesAndEventsInOrder() throws {
        let text = """
        \(header)
        {"t":1000,"peer":"publisher","pc":"pub-1","report":[{"id":"OT1","type":"outbound-rtp","timestamp":1000.5,"kind":"video","bytesSent":10}]}
        {"t":1500,"peer":"subscriber","event":"sender-stats","data":{"v":1}}
        {"t":2000,"peer":"publisher","pc":"pub-1","report":[{"id":"OT1","type":"outbound-rtp","timestamp":2000.5,"kind":"video","bytesSent":20,"unknownField":{"x":[1]}}]}
        """
        let timeline = try StatsTimeline.read(Array(text.utf8))
        #expect(timeline.format == .recording)
        #expect(timeline.items.count == 3)
        #expect(timeline.problems.isEmpty)
        guard case .event(let event) = timeline.items[1] else { Issue.record("expected an event"); return }
        #expect(event.name == "sender-stats" && event.peer == "subscriber")
        let last = timeline.samples[1].report["OT1"]
        #expect(last?.bytesSent == 20)
        #expect(last?.timestamp == 2000.5)
        #expect(last?["unknownField"]?["x"] == .array([.number(1)]), "unknown fields are kept raw")
    }

    @Test func aDamagedLineIsReportedWithItsNumberAndTheRestIsRead() throws {
        let text = """
        \(header)
        {"t":1000,"peer":"publisher","pc":"pub-1","report":[]}
        {"t":2000,"peer":"publisher","pc":"pub-1","report":[{"id":
        {"t":3000,"peer":"publisher","report":[]}
        {"t":4000,"peer":"publisher","pc":"pub-1","report":[]}
        """
        let timeline = try StatsTimeline.read(Array(text.utf8))
        #expect(timeline.samples.map(\.time) == [1000, 4000])
        #expect(timeline.problems.map(\.line) == [3, 4])
        #expect(timeline.problems[1].message.contains("\"pc\""))
    }

    @Test func aTruncatedGzipRecordingReplaysWhatItHas() throws {
        let compressed = try Synthetic.fixture("inflate-dynamic.ndjson.gz")
        let timeline = try StatsTimeline.read(Array(compressed.prefix(compressed.count * 3 / 4)))
        #expect(timeline.samples.count > 50)
        #expect(timeline.problems.contains { $0.code == .truncated })
    }

    @Test func aWholeGzipRecordingReadsEveryLine() throws {
        let timeline = try StatsTimeline.read(Synthetic.fixture("inflate-dynamic.ndjson.gz"))
        #expect(timeline.samples.count == 200)
        #expect(timeline.problems.isEmpty)
        #expect(timeline.metadata.first { $0.name == "scenario" }?.value == .string("synthetic"))
    }

    @Test func aNewerVersionIsRefusedClearly() {
        let text = #"{"format":"webrtc-stats-recording","version":2}"# + "\n"
        #expect(throws: StatsParseError.self) { try StatsTimeline.read(Array(text.utf8)) }
    }

    @Test func emptyAndUnknownInputsAreTypedErrors() {
        #expect(throws: StatsParseError.self) { try StatsTimeline.read([]) }
        #expect(throws: StatsParseError.self) { try StatsTimeline.read(Array("hello".utf8)) }
    }
}
