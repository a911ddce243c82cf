import RTCStats
import Testing

/// The one builder of `callscope call`'s lines and of a recording's (``RecordingWriter``):
/// members in the order added, `t` first, strings escaped (expected lines written by hand from
/// docs/spec/recording-format.md and the examples in README.md and docs/live-calls.md).
@Suite struct NDJSONLineTests {
    @Test func aLifecycleLineHasTheReplayShape() {
        var line = NDJSONLine(t: 1_796_119_516_227)
        line.string("peer", "session")
        line.string("pc", "")
        line.string("stream", "2863570297552501")
        line.string("callback", "session.streamVideoDimensionsChanged")
        line.value("data", .object([StatsField("width", .number(960)), StatsField("height", .number(540))]))
        #expect(line.line == #"{"t":1796119516227,"peer":"session","pc":"","stream":"2863570297552501","callback":"session.streamVideoDimensionsChanged","data":{"width":960,"height":540}}"#)
    }

    @Test func aRecordingSampleCarriesTheReportAsIsAndAnEventMayHaveNoPC() {
        var sample = NDJSONLine(t: 1_796_119_517_231.198)
        sample.string("peer", "bob")
        sample.string("pc", "pc-1")
        sample.json("report", #"[{"id":"T01","type":"transport","timestamp":1}]"#)
        #expect(sample.line == #"{"t":1796119517231.198,"peer":"bob","pc":"pc-1","report":[{"id":"T01","type":"transport","timestamp":1}]}"#)

        var event = NDJSONLine(t: 5)
        event.string("peer", "a \"quoted\" name")
        event.string("event", "subscriber.didDisconnect")
        event.value("data", .object([]))
        #expect(event.line == #"{"t":5,"peer":"a \"quoted\" name","event":"subscriber.didDisconnect","data":{}}"#)
    }
}
