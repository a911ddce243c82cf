import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

/// The writer of `webrtc-stats-recording` v1: expected lines written by hand from
/// recording-format.md (its header and sample examples), and read back by ``RecordingReader``.
@Suite struct RecordingWriterTests {
    /// A writer whose output collects the lines.
    final class Lines: @unchecked Sendable {
        // @unchecked: `bytes` is only touched under `lock`.
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        private var outputCalls = 0

        var writer: RecordingWriter {
            RecordingWriter { line in
                self.lock.lock()
                defer { self.lock.unlock() }
                self.bytes += line
                self.outputCalls += 1
            }
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: bytes, as: UTF8.self)
        }

        var calls: Int {
            lock.lock()
            defer { lock.unlock() }
            return outputCalls
        }

        var data: [UInt8] {
            lock.lock()
            defer { lock.unlock() }
            return bytes
        }
    }

    static let outbound = StatsEntry(id: "OT01V123", type: .outboundRTP, timestamp: 1_795_978_382_333.4,
                                     fields: [StatsField("kind", .string("video")), StatsField("bytesSent", .number(123_456)),
                                              StatsField("rid", .string("f"))])

    @Test func theHeaderIsTheSpecsFirstLine() {
        let lines = Lines()
        lines.writer.writeHeader(RecordingHeader(scenario: "publisher-uplink-400k", browser: "Chromium 156.0.8078.108",
                                                 sfu: "janus 1.1.2", intervalMilliseconds: 1000))
        #expect(lines.text == #"{"format":"webrtc-stats-recording","version":1,"scenario":"publisher-uplink-400k","browser":"Chromium 156.0.8078.108","sfu":"janus 1.1.2","interval_ms":1000}"# + "\n")
        #expect(lines.calls == 1, "one line, one output call")
    }

    @Test func headerFieldsFollowInOrderAndDoNotRepeatTheHeadersOwnKeys() {
        let lines = Lines()
        lines.writer.writeHeader(RecordingHeader(intervalMilliseconds: 500, fields: [
            StatsField("publishers", .array([.string("publisher-a")])), StatsField("version", .number(2)),
            StatsField("interval_ms", .number(1)), StatsField("scenario", .string("from fields")),
        ]))
        #expect(lines.text == #"{"format":"webrtc-stats-recording","version":1,"interval_ms":500,"publishers":["publisher-a"],"scenario":"from fields"}"# + "\n")
    }

    @Test func aSampleLineCarriesTheReportWithEveryField() {
        let lines = Lines()
        lines.writer.writeSample(time: 1_795_978_382_333, peer: "publisher", peerConnection: "pub-1", report: StatsReport(entries: [Self.outbound]))
        #expect(lines.text == #"{"t":1795978382333,"peer":"publisher","pc":"pub-1","report":[{"id":"OT01V123","type":"outbound-rtp","timestamp":1795978382333.4,"kind":"video","bytesSent":123456,"rid":"f"}]}"# + "\n")
    }

    @Test func eventLinesHaveAPCOnlyWhenGiven() {
        let lines = Lines()
        lines.writer.writeEvent(time: 5, peer: "rig", name: "impairment-start", data: .object([StatsField("side", .string("publisher-uplink"))]))
        lines.writer.writeEvent(time: 6.5, peer: "a \"quoted\" name", peerConnection: "sub-1", name: TimelineEventName.subscriberReceiveLimit,
                                data: .object([StatsField("limit", .string("downlink")), StatsField("stream", .string("S1"))]))
        #expect(lines.text == """
            {"t":5,"peer":"rig","event":"impairment-start","data":{"side":"publisher-uplink"}}
            {"t":6.5,"peer":"a \\"quoted\\" name","pc":"sub-1","event":"subscriber.receiveLimit","data":{"limit":"downlink","stream":"S1"}}

            """)
    }

    @Test func aSenderStatsMessageIsKeptAsReceived() {
        let lines = Lines()
        lines.writer.writeSenderStats(time: 1_800_000_000_000, peer: "subscriber", peerConnection: "sub-1",
                                      message: #"{"type":"callscope-sender-stats","v":1,"seq":3,"rttMs":5.5}"#)
        lines.writer.writeSenderStats(time: 1_800_000_000_001, peer: "subscriber", peerConnection: nil, message: "not json")
        #expect(lines.text == """
            {"t":1800000000000,"peer":"subscriber","pc":"sub-1","event":"sender-stats","data":{"type":"callscope-sender-stats","v":1,"seq":3,"rttMs":5.5}}
            {"t":1800000000001,"peer":"subscriber","event":"sender-stats","data":"not json"}

            """)
    }

    @Test(arguments: [
        (TimelineEventName.senderStats, "sender-stats"), (TimelineEventName.subscriberStreams, "subscriber-streams"),
        (TimelineEventName.subscriberLayerChanged, "subscriber.layerChanged"), (TimelineEventName.subscriberVideoDisabled, "subscriber.videoDisabled"),
        (TimelineEventName.subscriberVideoEnabled, "subscriber.videoEnabled"),
        (TimelineEventName.subscriberVideoDisableWarning, "subscriber.videoDisableWarning"),
        (TimelineEventName.subscriberReceiveLimit, "subscriber.receiveLimit"),
    ])
    func eventNamesAreTheFormatsSpelling(name: String, spelled: String) {
        #expect(name == spelled)
    }

    @Test func whatTheWriterWritesTheReaderReads() throws {
        let lines = Lines()
        let writer = lines.writer
        writer.writeHeader(RecordingHeader(scenario: "round-trip", browser: "Chromium 156", sfu: "janus 1.1.2", intervalMilliseconds: 1000,
                                           fields: [StatsField("publishers", .array([.object([StatsField("publisher", .string("P1"))])]))]))
        writer.writeSample(time: 1000, peer: "alice.publisher", peerConnection: "pc-0", report: StatsReport(entries: [Self.outbound]))
        writer.writeEvent(time: 1500, peer: "alice", peerConnection: "pc-1", name: TimelineEventName.subscriberStreams,
                          data: .object([StatsField("streams", .array([.object([StatsField("publisher", .string("P1")), StatsField("stream", .string("S1"))])]))]))
        writer.writeSenderStats(time: 1600, peer: "alice", peerConnection: "pc-1", message: #"{"v":1,"seq":1}"#)
        writer.writeSample(time: 2000, peer: "alice", peerConnection: "pc-1", report: StatsReport(entries: [
            StatsEntry(id: "IT1", type: .inboundRTP, timestamp: 2000.25, fields: [StatsField("kind", .string("video")), StatsField("bytesReceived", .number(4096)),
                                                                                  StatsField("unknownField", .object([StatsField("x", .array([.number(1)]))]))]),
        ]))

        let timeline = try RecordingReader.read(lines.data)
        #expect(timeline.problems.isEmpty)
        #expect(timeline.metadata.map(\.name) == ["format", "version", "scenario", "browser", "sfu", "interval_ms", "publishers"])
        #expect(timeline.metadata.first { $0.name == "interval_ms" }?.value == .number(1000))
        #expect(timeline.items.map(\.time) == [1000, 1500, 1600, 2000])
        #expect(timeline.samples.map(\.peer) == ["alice.publisher", "alice"])
        #expect(timeline.samples.map(\.peerConnection) == ["pc-0", "pc-1"])
        let sent = try #require(timeline.samples[0].report["OT01V123"])
        #expect(sent.type == .outboundRTP && sent.timestamp == 1_795_978_382_333.4 && sent.bytesSent == 123_456 && sent["rid"] == .string("f"))
        let received = try #require(timeline.samples[1].report["IT1"])
        #expect(received.bytesReceived == 4096 && received.timestamp == 2000.25)
        #expect(received["unknownField"]?["x"] == .array([.number(1)]))
        let events = timeline.items.compactMap { item -> TimelineEvent? in if case .event(let event) = item { event } else { nil } }
        #expect(events.map(\.name) == ["subscriber-streams", "sender-stats"])
        #expect(events.map(\.peerConnection) == ["pc-1", "pc-1"])
        #expect(events[1].data == .object([StatsField("v", .number(1)), StatsField("seq", .number(1))]))
    }

    @Test func aShippedRecordingCopiedItemByItemReadsTheSame() throws {
        let root = Synthetic.repositoryRoot()
        let original = try StatsTimeline.read([UInt8](Data(contentsOf: root.appendingPathComponent("Recordings/baseline.ndjson.gz"))))
        let lines = Lines()
        lines.writer.writeHeader(RecordingHeader(fields: original.metadata))
        for item in original.items { lines.writer.write(item) }
        let copy = try StatsTimeline.read(lines.data)
        #expect(copy.problems.isEmpty && original.problems.isEmpty)
        #expect(copy.metadata == original.metadata)
        #expect(copy.items.count == original.items.count)
        #expect(copy.items.count > 100)
        for (a, b) in zip(original.items, copy.items) {
            switch (a, b) {
            case (.sample(let a), .sample(let b)):
                #expect(a.time == b.time && a.peer == b.peer && a.peerConnection == b.peerConnection && a.report.jsonArray() == b.report.jsonArray())
            case (.event(let a), .event(let b)):
                #expect(a == b)
            default:
                Issue.record("item kinds differ at \(a.time)")
            }
        }
    }
}
