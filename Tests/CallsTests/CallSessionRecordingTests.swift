import Calls
import CallScopeCore
import CallScopeTesting
import Foundation
import Observability
import RTCStats
import Testing

/// What a session tells its stats recorder (`callscope call --record`), and which data-channel
/// messages reach a subscriber's monitor as sender stats.
@Suite(.timeLimit(.minutes(1))) struct CallSessionRecordingTests {
    static func message(seq: Int) -> String {
        #"{"type":"callscope-sender-stats","v":1,"seq":\#(seq),"t":\#(1_800_000_000_000 + seq),"connectionMaxAllocatedBitrate":2000000,"connectionEstimatedBandwidth":900000,"rttMs":5,"lossFraction":0}"#
    }

    @Test func senderStatsOnOurChannelOrTheFeedsRelayedChannelAreRecordedAndFedInOrder() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(1), subscriberHealthInterval: nil))
        let records = Locked<[CallStatsRecord]>([])
        await rig.session.setStatsRecorder { record in records.withLock { $0.append(record) } }
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        // Janus relays the publisher's "callscope" channel under the feed id ("7"); a channel
        // of another name is not sender stats.
        rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 1)))
        rig.engine.emit(.dataChannelMessage(pc, label: "chat", text: Self.message(seq: 2)))
        rig.engine.emit(.dataChannelMessage(pc, label: "callscope", text: Self.message(seq: 3)))
        // Both reach the monitor; the second is rate-limited there, as the fake wall clock
        // stands still (accepted 1 + dropped 1; the "chat" message would make a third).
        await eventually("two messages reached the monitor") { subscriber.statsMonitor.senderStatsCounts.accepted + subscriber.statsMonitor.senderStatsCounts.dropped == 2 }
        rig.engine.setReport(CallSessionTests.pairReport(bytes: 1000, at: 1_800_000_001_000), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("a sample recorded") { records.withLock { $0.count } == 3 }
        let summary = records.withLock { $0 }.map { record -> String in
            switch record {
            case .senderStatsReceived(let stream, let pc, let text, let time):
                "sender-stats \(stream.streamId) \(pc) seq \(text.contains("\"seq\":1") ? 1 : 3) at \(Int(time))"
            case .subscriberSample(let stream, let pc, let report): "sample \(stream.streamId) \(pc) \(Int(report.timestamp ?? 0))"
            case .publisherSample(let pc, _): "publisher \(pc)"
            case .receiveLimitChanged(let stream, let pc, let limit, _): "limit \(stream.streamId) \(pc) \(limit.rawValue)"
            }
        }
        #expect(summary == ["sender-stats 7 pc-1 seq 1 at 1800000000000", "sender-stats 7 pc-1 seq 3 at 1800000000000",
                            "sample 7 pc-1 1800000001000"])
        #expect(subscriber.statsMonitor.senderStatsCounts.accepted == 1)
        #expect(subscriber.statsMonitor.senderStatsCounts.dropped == 1)
    }

    // MARK: - An app records its own call (`record(to:peer:)`)

    /// A writer whose output the test reads.
    static func collecting() -> (RecordingWriter, Locked<[UInt8]>) {
        let bytes = Locked<[UInt8]>([])
        return (RecordingWriter { line in bytes.withLock { $0 += line } }, bytes)
    }

    static func lines(_ bytes: Locked<[UInt8]>) -> [String] {
        String(decoding: bytes.withLock { $0 }, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func aSubscribersConnectionIsBoundThenItsMessagesAndSamplesAreWrittenUntilTheAppStops() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(1), subscriberHealthInterval: nil))
        let (writer, bytes) = Self.collecting()
        writer.writeHeader(RecordingHeader(scenario: "app", intervalMilliseconds: 1000))
        await rig.session.record(to: writer, peer: "alice")
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 1)))
        await eventually("the message reached the monitor") { subscriber.statsMonitor.senderStatsCounts.accepted == 1 }
        rig.engine.setReport(CallSessionTests.pairReport(bytes: 1000, at: 1_800_000_001_000), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("a sample written") { Self.lines(bytes).count == 4 }

        // By hand from recording-format.md: the stream's binding before the connection's first
        // line (at the message's time, the fake wall clock's 1_800_000_000 s), the message as
        // received, the report with every field at its own timestamp.
        #expect(Self.lines(bytes) == [
            #"{"format":"webrtc-stats-recording","version":1,"scenario":"app","interval_ms":1000}"#,
            #"{"t":1800000000000,"peer":"alice","pc":"pc-1","event":"subscriber-streams","data":{"streams":[{"publisher":"7","stream":"7"}]}}"#,
            #"{"t":1800000000000,"peer":"alice","pc":"pc-1","event":"sender-stats","data":{"type":"callscope-sender-stats","v":1,"seq":1,"t":1800000000001,"connectionMaxAllocatedBitrate":2000000,"connectionEstimatedBandwidth":900000,"rttMs":5,"lossFraction":0}}"#,
            #"{"t":1800000001000,"peer":"alice","pc":"pc-1","report":[{"id":"T01","type":"transport","timestamp":1800000001000,"selectedCandidatePairId":"CP1"},{"id":"CP1","type":"candidate-pair","timestamp":1800000001000,"bytesReceived":1000,"responsesReceived":0,"state":"succeeded","nominated":true}]}"#,
        ])
        let timeline = try RecordingReader.read(bytes.withLock { $0 })
        #expect(timeline.problems.isEmpty && timeline.samples.count == 1 && timeline.items.compactMap { item -> String? in if case .event(let event) = item { event.name } else { nil } } == [TimelineEventName.subscriberStreams, TimelineEventName.senderStats])

        await rig.session.stopRecording()
        rig.engine.setReport(CallSessionTests.pairReport(bytes: 2000, at: 1_800_000_002_000), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 2)))
        await eventually("the second message reached the monitor") {
            subscriber.statsMonitor.senderStatsCounts.accepted + subscriber.statsMonitor.senderStatsCounts.dropped == 2
        }
        await rig.clock.waitForSleepers(1)
        #expect(Self.lines(bytes).count == 4, "nothing written after stopRecording()")
    }

    @Test func thePublishingConnectionIsItsOwnEndpointAndAReportWithoutTimestampTakesTheWallClock() async throws {
        let published = try await PublisherReconnectionTests.published()
        let (writer, bytes) = Self.collecting()
        await published.rig.session.record(to: writer)
        await PublisherReconnectionTests.second(published.rig, CallSessionTests.pairReport(bytes: 1000, at: 1_800_000_001_000))
        await PublisherReconnectionTests.second(published.rig, StatsReport(entries: []))
        #expect(Self.lines(bytes) == [
            #"{"t":1800000001000,"peer":"local.publisher","pc":"pc-1","report":[{"id":"T01","type":"transport","timestamp":1800000001000,"selectedCandidatePairId":"CP1"},{"id":"CP1","type":"candidate-pair","timestamp":1800000001000,"bytesReceived":1000,"responsesReceived":0,"state":"succeeded","nominated":true}]}"#,
            #"{"t":1800000000000,"peer":"local.publisher","pc":"pc-1","report":[]}"#,
        ])
    }
}
