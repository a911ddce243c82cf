import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

/// Damage costs only what it touches, and says what it cost.
@Suite struct DamagedInputTests {
    static func recording(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Synthetic.repositoryRoot().appendingPathComponent("Recordings/\(name)")))
    }

    static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    }

    static func joined(_ lines: [ArraySlice<UInt8>]) -> [UInt8] {
        Array(lines.map(Array.init).joined(separator: [0x0A]))
    }

    /// Line 1 of a real rtcstats v1 dump cut in half: the dump is still an rtcstats dump, line 1
    /// is reported (with its own line number, not a byte offset into the whole file) and every
    /// other line is read, exactly as when line 2 is damaged.
    @Test(arguments: [1, 2]) func damageOnAnRTCStatsLineCostsThatLine(line: Int) throws {
        let bytes = try Synthetic.fixture("chrome-relay.rtcstats")
        let clean = try StatsTimeline.read(bytes)
        var lines = Self.lines(bytes)
        lines[line - 1] = lines[line - 1].prefix(lines[line - 1].count / 2)
        let damaged = try StatsTimeline.read(Self.joined(lines))
        #expect(damaged.format == .rtcstats)
        #expect(damaged.problems.map(\.line) == [line])
        #expect(damaged.items.count == clean.items.count - 1)
        #expect(damaged.samples.count == clean.samples.count, "lines 1 and 2 are not getstats lines")
        #expect(damaged.quality.skipped.values.reduce(0, +) == 1)
    }

    /// The same for our recording's header.
    @Test func aDamagedRecordingHeaderCostsTheHeaderOnly() throws {
        let plain = try Gzip.decompress(Self.recording("baseline-simulcast.ndjson.gz"))
        let clean = try StatsTimeline.read(plain)
        var lines = Self.lines(plain)
        lines[0] = lines[0].prefix(40)
        let damaged = try StatsTimeline.read(Self.joined(lines))
        #expect(damaged.format == .recording)
        #expect(damaged.problems.map(\.line) == [1])
        #expect(damaged.samples.count == clean.samples.count)
    }

    /// One series of the real subscriber dump with broken `values`: only that series is lost,
    /// and the warning names it.
    @Test func aBadSeriesCostsThatSeriesOnly() throws {
        let plain = try Gzip.decompress(Self.recording("webrtc-internals-subscriber.json.gz"))
        let clean = try StatsTimeline.read(plain)
        let text = String(decoding: plain, as: UTF8.self)
        let start = try #require(text.range(of: "\"IT01V2967248272-jitter\""))
        let values = try #require(text.range(of: "\"values\": \"[", range: start.upperBound..<text.endIndex))
        let damagedText = text.replacingCharacters(in: values.upperBound..<values.upperBound, with: "1,,")
        let damaged = try StatsTimeline.read(Array(damagedText.utf8))
        #expect(damaged.samples.count == clean.samples.count)
        #expect(damaged.problems.count == 1)
        #expect(damaged.problems.first?.series == "IT01V2967248272-jitter")
        #expect(damaged.problems.first?.description.contains("IT01V2967248272-jitter") == true)
        let entry = try #require(damaged.samples.last?.report["IT01V2967248272"])
        #expect(entry["jitter"] == nil)
        #expect(entry.bytesReceived == clean.samples.last?.report["IT01V2967248272"]?.bytesReceived)
        #expect(damaged.quality.skipped == [.invalidJSON: 1])
    }

    /// A shuffled real recording reads to the same samples in the same time order, and says how
    /// many lines it had to move.
    @Test func outOfOrderRecordingLinesAreKeptSortedAndCounted() throws {
        let plain = try Gzip.decompress(Self.recording("baseline-simulcast.ndjson.gz"))
        let clean = try StatsTimeline.read(plain)
        #expect(clean.quality.reordered == 0)
        var lines = Self.lines(plain).filter { !$0.isEmpty }
        var generator = SeededGenerator(seed: 14)
        let header = lines.removeFirst()
        lines.shuffle(using: &generator)
        let shuffled = try StatsTimeline.read(Self.joined([header] + lines))
        #expect(shuffled.items.count == clean.items.count)
        #expect(shuffled.items.map(\.time) == clean.items.map(\.time))
        #expect(Set(shuffled.samples.map { "\($0.time)/\($0.peer)" }) == Set(clean.samples.map { "\($0.time)/\($0.peer)" }))
        #expect(shuffled.quality.reordered > lines.count / 4, "most lines of a shuffled file come after a later one of their peer")
        #expect(shuffled.quality.summaryLine.contains("reordered \(shuffled.quality.reordered)"))
    }

    @Test(arguments: ["chrome-relay.rtcstats", "inflate-plain.ndjson", "dolbyio-first.json"])
    func aByteOrderMarkIsAccepted(name: String) throws {
        let bytes = try Synthetic.fixture(name)
        let clean = try StatsTimeline.read(bytes)
        let marked = try StatsTimeline.read([0xEF, 0xBB, 0xBF] + bytes)
        #expect(marked.format == clean.format)
        #expect(marked.items == clean.items)
        #expect(marked.problems.isEmpty)
    }

    @Test func aByteOrderMarkInsideGzipIsAccepted() throws {
        let subscriber = try StatsTimeline.read(Self.recording("webrtc-internals-subscriber.json.gz"))
        let plain = try Gzip.decompress(Self.recording("webrtc-internals-subscriber.json.gz"))
        let marked = try StatsTimeline.read([0xEF, 0xBB, 0xBF] + plain)
        #expect(marked.samples.count == subscriber.samples.count)
    }

    @Test func garbageAfterAGzipStreamIsReportedAndTheStreamKept() throws {
        let compressed = try Synthetic.fixture("inflate-dynamic.ndjson.gz")
        let withGarbage = compressed + Array("not gzip".utf8)
        #expect(throws: StatsParseError.self) { try Gzip.decompress(withGarbage) }
        let prefix = Gzip.decompressPrefix(withGarbage)
        let (output, error) = (prefix.output, prefix.error)
        #expect(output == (try Synthetic.fixture("inflate-plain.ndjson")))
        #expect(error?.code == .trailingData)
        #expect(error?.message.contains("8 bytes") == true)
        let timeline = try StatsTimeline.read(withGarbage)
        #expect(timeline.samples.count == 200)
        #expect(timeline.problems.map(\.code) == [.trailingData])
        #expect(timeline.quality.skipped == [.trailingData: 1])
    }

    @Test func aCleanReadSaysSo() throws {
        let timeline = try StatsTimeline.read(Self.recording("baseline-simulcast.ndjson.gz"))
        #expect(timeline.quality.isClean)
        #expect(timeline.quality.samplesRead == timeline.samples.count)
        #expect(timeline.quality.summaryLine == "data quality: \(timeline.samples.count) samples, \(timeline.items.count - timeline.samples.count) events read; skipped 0; values dropped 0; reordered 0")
    }
}
